package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// rewindProcess is this test binary run as rewind (TestMain).
func rewindProcess(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"--"}, args...)...)
	cmd.Env = append(os.Environ(), "REWIND_AS_MAIN=1")
	return cmd
}

// writeLog writes n canonical rows of experiment exp (none: named from
// the file) and run.
func writeLog(t *testing.T, path, run string, n int) {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"run":%q,"req":%d,"t_ms":%d,"latency_ms":%d.5,"outcome":"ok"}`+"\n", run, i, i, i%50)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestConvertConcurrently runs two rewind processes converting different
// files into one dataset at the same time, twice: into experiments of
// their own (both decode at once, commits take turns) and as runs of one
// experiment (the second commit finds the first's files and converts
// again). The dataset then loads with every row, each file its own id
// and seqs, and no part left over.
func TestConvertConcurrently(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, name := range []string{"a.ndjson", "b.ndjson", "c.ndjson", "d.ndjson"} {
		p := filepath.Join(dir, name)
		writeLog(t, p, fmt.Sprintf("r%d", i), 20000)
		files = append(files, p)
	}
	ds := filepath.Join(dir, "ds")
	runPair := func(a, b []string) {
		ca, cb := rewindProcess(a...), rewindProcess(b...)
		var oa, ob strings.Builder
		ca.Stdout, ca.Stderr, cb.Stdout, cb.Stderr = &oa, &oa, &ob, &ob
		if err := ca.Start(); err != nil {
			t.Fatal(err)
		}
		if err := cb.Start(); err != nil {
			t.Fatal(err)
		}
		if err := ca.Wait(); err != nil {
			t.Errorf("%v: %v\n%s", a, err, oa.String())
		}
		if err := cb.Wait(); err != nil {
			t.Errorf("%v: %v\n%s", b, err, ob.String())
		}
	}
	runPair([]string{"ingest", "--dataset", ds, files[0]}, []string{"ingest", "--dataset", ds, files[1]})
	runPair([]string{"ingest", "--dataset", ds, "--experiment", "fleet", files[2]}, []string{"ingest", "--dataset", ds, "--experiment", "fleet", files[3]})
	db := filepath.Join(dir, "all.duckdb")
	out, err := rewindProcess("ingest", "--db", db, ds).CombinedOutput()
	if err != nil {
		t.Fatalf("load: %v\n%s", err, out)
	}
	if want := ds + ": dataset, 80000 requests, 0 events, 4 runs, 4 files\n"; string(out) != want {
		t.Errorf("load: %q, want %q", out, want)
	}
	q := `SELECT count(DISTINCT file_id) || ' ' || count(DISTINCT seq) || ' ' || (SELECT count(*) FROM requests WHERE run_pos IS DISTINCT FROM req) FROM requests`
	out, err = rewindProcess("sql", "--db", db, "--format", "csv", q).CombinedOutput()
	if err != nil || !strings.HasSuffix(string(out), "\n4 80000 0\n") {
		t.Errorf("ids, seqs and positions: %v\n%s", err, out)
	}
	ents, _ := os.ReadDir(ds)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "_") && e.Name() != "_rewind.json" {
			t.Errorf("left in the dataset: %s", e.Name())
		}
	}
}

// TestConvertKilled kills a conversion while it reads its input (standard
// input, a pipe that stalls halfway): no part is left, and a later conversion succeeds
// and removes the killed one's work folder.
func TestConvertKilled(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	cmd := rewindProcess("ingest", "--dataset", ds, "--from", "ndjson", "--name", "slow.ndjson", "-")
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	defer w.Close()
	// More than a pipe holds: the reader is mid-file when this returns, and
	// the pipe stays open (it stalls).
	for i := 0; i < 50000; i++ {
		fmt.Fprintf(w, `{"run":"r","req":%d,"t_ms":%d,"latency_ms":1,"outcome":"ok"}`+"\n", i, i)
	}
	works, _ := filepath.Glob(filepath.Join(ds, "_convert-*"))
	if len(works) != 1 {
		t.Fatalf("work folders %v, want the conversion's", works)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	for _, table := range []string{"requests", "events", "runs", "files", "experiments", "run_gaps"} {
		if _, err := os.Stat(filepath.Join(ds, table)); err == nil {
			t.Errorf("a killed conversion left %s", table)
		}
	}
	log := filepath.Join(dir, "ok.ndjson")
	writeLog(t, log, "r", 10)
	out, err := rewindProcess("ingest", "--dataset", ds, log).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if works, _ := filepath.Glob(filepath.Join(ds, "_convert-*")); len(works) != 0 {
		t.Errorf("left: %v", works)
	}
	out, err = rewindProcess("analyze", "peaks", "--dataset", ds, "--format", "csv").CombinedOutput()
	if err != nil {
		t.Errorf("analyze the dataset: %v\n%s", err, out)
	}
}
