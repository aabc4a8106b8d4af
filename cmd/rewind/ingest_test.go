package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An ingest that fails before or during loading into a new database leaves
// no database file behind; into an existing one it leaves it as it was.
func TestFailedIngestLeavesNoNewDatabase(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"no-such-file.ndjson"},
		{filepath.Join(dir)}, // an empty folder
		{"../../ingest/testdata/bad/bad-latency/input.ndjson"},
	} {
		db := filepath.Join(dir, "new.duckdb")
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"ingest", "--db", db}, args...), nil, &out, &errb)
		if code != exitError {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitError, errb.String())
		}
		for _, p := range []string{db, db + ".wal"} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%v: %s left behind", args, p)
			}
		}
	}
}

// TestMain lets a test run this binary as the rewind process itself:
// REWIND_AS_MAIN=1 makes it main, with the arguments after "--".
func TestMain(m *testing.M) {
	if os.Getenv("REWIND_AS_MAIN") == "1" {
		for i, a := range os.Args {
			if a == "--" {
				os.Exit(mainCode(os.Args[i+1:]))
			}
		}
		os.Exit(exitUsage)
	}
	// Reports carry their date in the footer: a fixed one keeps the
	// goldens (and the README's example outputs) the same every day.
	os.Setenv("SOURCE_DATE_EPOCH", "1796169600")
	os.Exit(m.Run())
}

// A write that fails (here: past the file size limit, as a full disk
// would) is reported with DuckDB's I/O error and exit 1, not killed by
// SIGXFSZ or reported as "context canceled", and the new database goes.
func TestIngestWriteFailure(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash for ulimit")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "big.ndjson")
	var b strings.Builder
	for i := 0; i < 200000; i++ {
		fmt.Fprintf(&b, `{"run":"a","req":%d,"outcome":"ok","latency_ms":%d.5,"region":"eu-west-%d"}`+"\n", i, i, i%7)
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "x.duckdb")
	cmd := exec.Command("bash", "-c", `ulimit -f 600; exec "$0" "$@"`, os.Args[0], "--", "ingest", "--db", db, log)
	cmd.Env = append(os.Environ(), "REWIND_AS_MAIN=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitError {
		t.Fatalf("exit: %v, want code %d; output:\n%s", err, exitError, out)
	}
	if !strings.Contains(string(out), "File too large") || strings.Contains(string(out), "context canceled") {
		t.Errorf("output does not name the write error:\n%s", out)
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("%s left behind", db)
	}
}

// Two pipes, and two files of one base name, become distinct experiments
// and say so; rows naming another file's run are refused with a Try line
// that works, the database unchanged.
func TestIngestNoSilentMerge(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "m.duckdb")
	ingest := func(stdin string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(ctx, append([]string{"ingest", "--db", db}, args...), strings.NewReader(stdin), &out, &errb)
		return code, out.String(), errb.String()
	}
	row := func(lat int) string {
		return fmt.Sprintf(`{"run":"r","t_ms":0,"latency_ms":%d,"outcome":"ok"}`+"\n", lat)
	}
	for i, want := range []string{"stdin-1: ndjson, experiment stdin-1: 1 row\n", "stdin-2: ndjson, experiment stdin-2: 1 row\n"} {
		if code, out, errb := ingest(row(i+1), "-"); code != 0 || out != want {
			t.Errorf("pipe %d: exit %d, %q %s, want %q", i+1, code, out, errb, want)
		}
	}
	if code, out, errb := ingest(row(9), "--name", "checkout.json", "-"); code != 0 || out != "checkout.json: ndjson, experiment checkout: 1 row\n" {
		t.Errorf("--name: exit %d, %q %s", code, out, errb)
	}
	for _, sub := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(dir, "a", "results.json"), filepath.Join(dir, "b", "results.json")
	os.WriteFile(a, []byte(row(3)), 0o644)
	os.WriteFile(b, []byte(row(4)), 0o644)
	ingest("", a)
	if code, out, errb := ingest("", b); code != 0 || out != b+": ndjson, experiment results-2: 1 row\n" || !strings.Contains(errb, "Warning: "+b+": experiment results holds another file's rows") {
		t.Errorf("same base name: exit %d, %q %q", code, out, errb)
	}
	stat := func() string {
		var out, errb bytes.Buffer
		run(ctx, []string{"sql", "--db", db, "SELECT count(*), sum(hash(r::VARCHAR)) FROM requests r"}, nil, &out, &errb)
		return out.String() + errb.String()
	}
	before := stat()
	code, _, errb := ingest("", "--experiment", "results", b)
	wantTry := "Try: rewind ingest --db " + db + " --experiment results --append " + b + "\n"
	if code != exitError || !strings.Contains(errb, "its rows name run r of experiment results") || !strings.HasSuffix(errb, wantTry) || stat() != before {
		t.Errorf("rows naming another file's run: exit %d, %q, want the refusal ending %q, the database unchanged", code, errb, wantTry)
	}
}
