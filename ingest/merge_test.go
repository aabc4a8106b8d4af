package ingest

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// experimentRows counts the rows of each experiment, "name=rows" in name order.
func experimentRows(t *testing.T, db *sql.DB) string {
	t.Helper()
	var s sql.NullString
	err := db.QueryRow(`SELECT string_agg(experiment || '=' || n, ' ' ORDER BY experiment)
		FROM (SELECT experiment, count(*) AS n FROM requests GROUP BY ALL)`).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s.String
}

// copyAs copies a real sample to dir/name (folders made as needed).
func copyAs(t *testing.T, src, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	return writeBytes(t, dir, name, b)
}

// mustRefuse wants an ingest refused with a Try flag, the database unchanged.
func mustRefuse(t *testing.T, db *sql.DB, opts Options, wantErr, wantFlag string, paths ...string) {
	t.Helper()
	before := snapshot(t, db)
	_, err := Files(context.Background(), db, opts, paths)
	var h *HintedError
	if err == nil || !strings.Contains(err.Error(), wantErr) || !errors.As(err, &h) || h.Param != wantFlag {
		t.Fatalf("ingest %v: error %v, want one containing %q with a Try of --%s", paths, err, wantErr, wantFlag)
	}
	if snapshot(t, db) != before {
		t.Error("a refused ingest changed the database")
	}
}

// Two tools' results.json, in two commands or one, are two experiments:
// the second takes a suffix and says so; a re-ingest is still a no-op and
// --append still joins.
func TestSameBaseNameTwoTools(t *testing.T) {
	dir := t.TempDir()
	k6 := copyAs(t, "testdata/real/k6/unordered-tags/input.json", dir, "k6/results.json")
	vegeta := copyAs(t, "testdata/real/vegeta/json-ratelimiter/input.json", dir, "vegeta/results.json")
	more := copyAs(t, "testdata/real/k6/redirects/input.json", dir, "more/results.json")
	for _, together := range []bool{false, true} {
		db, _ := openDB(t)
		var res []Result
		if together {
			res = mustIngest(t, db, Options{}, k6, vegeta)
		} else {
			res = append(mustIngest(t, db, Options{}, k6), mustIngest(t, db, Options{}, vegeta)...)
		}
		got := []string{res[0].Experiment, res[1].Experiment}
		if diff := cmp.Diff([]string{"results", "results-2"}, got); diff != "" {
			t.Fatalf("together=%v: experiments (-want +got):\n%s", together, diff)
		}
		if len(res[1].Warnings) == 0 || !strings.Contains(said(res[1].Warnings[0]), "loaded as experiment results-2") {
			t.Errorf("together=%v: warnings %q, want the rename said", together, res[1].Warnings)
		}
		want := experimentRows(t, db)
		if want != "results=5 results-2=38" {
			t.Errorf("together=%v: rows per experiment %s", together, want)
		}
		before := snapshot(t, db)
		again := mustIngest(t, db, Options{}, vegeta)
		if !again[0].Skipped || again[0].Experiment != "results-2" || snapshot(t, db) != before {
			t.Errorf("together=%v: re-ingest %+v, want a no-op naming results-2", together, again[0])
		}
		app := mustIngest(t, db, Options{Append: true}, more)
		if app[0].Experiment != "results" || len(app[0].Warnings) > 0 {
			t.Errorf("together=%v: --append gave %+v, want experiment results joined", together, app[0])
		}
	}
}

// Two pipes are stdin-1 and stdin-2 (in the files table too); --name
// names one; the same content piped again is a no-op.
func TestTwoStdinIngests(t *testing.T) {
	db, _ := openDB(t)
	pipe := func(opts Options, content string) Result {
		opts.Stdin = strings.NewReader(content)
		return mustIngest(t, db, opts, Stdin)[0]
	}
	one := `{"run":"r","t_ms":0,"latency_ms":5,"outcome":"ok"}` + "\n"
	two := `{"run":"r","t_ms":0,"latency_ms":7,"outcome":"ok"}` + "\n"
	three := `{"run":"r","t_ms":0,"latency_ms":9,"outcome":"error"}` + "\n"
	a, b := pipe(Options{}, one), pipe(Options{}, two)
	named := pipe(Options{Name: "checkout.ndjson"}, three)
	got := []string{a.Path, a.Experiment, b.Path, b.Experiment, named.Path, named.Experiment}
	if diff := cmp.Diff([]string{"stdin-1", "stdin-1", "stdin-2", "stdin-2", "checkout.ndjson", "checkout"}, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	var paths string
	if err := db.QueryRow(`SELECT string_agg(path, ' ' ORDER BY file_id) FROM files`).Scan(&paths); err != nil || paths != "stdin-1 stdin-2 checkout.ndjson" {
		t.Errorf("files.path %q (%v)", paths, err)
	}
	before := snapshot(t, db)
	if again := pipe(Options{}, two); !again.Skipped || again.Experiment != "stdin-2" || snapshot(t, db) != before {
		t.Errorf("the same pipe again: %+v, want a no-op", again)
	}
	if _, err := Files(context.Background(), db, Options{Name: "x"}, []string{"testdata/real/k6/redirects/input.json"}); err == nil {
		t.Error("--name without standard input: no error")
	}
}

// A run a file's rows name themselves does not join another file's run
// without --append; a run named from the file under --experiment takes a
// suffix.
func TestRunOfAnotherFile(t *testing.T) {
	write := lineWriter(t)
	a := write("a.ndjson", `{"run":"r","t_ms":0,"outcome":"ok"}`, `{"run":"r","t_ms":5,"outcome":"ok"}`)
	b := write("b.ndjson", `{"run":"r","t_ms":0,"outcome":"error"}`)
	db, _ := openDB(t)
	mustIngest(t, db, Options{Experiment: "x"}, a)
	mustRefuse(t, db, Options{Experiment: "x"}, "run r of experiment x, which holds 2 rows of "+a, "append", b)
	mustIngest(t, db, Options{Experiment: "x", Append: true}, b)
	if got := experimentRows(t, db); got != "x=3" {
		t.Errorf("after --append: %s, want x=3", got)
	}

	dir := t.TempDir()
	first := writeBytes(t, dir, "one/results.ndjson", []byte(`{"t_ms":0,"outcome":"ok"}`+"\n"))
	second := writeBytes(t, dir, "two/results.ndjson", []byte(`{"t_ms":0,"outcome":"error"}`+"\n"))
	res := mustIngest(t, db, Options{Experiment: "y"}, first, second)
	var runs string
	if err := db.QueryRow(`SELECT string_agg(run, ' ' ORDER BY run) FROM runs WHERE experiment = 'y'`).Scan(&runs); err != nil || runs != "results results-2" {
		t.Errorf("runs of y %q (%v), want results results-2", runs, err)
	}
	if len(res[1].Warnings) == 0 || !strings.Contains(said(res[1].Warnings[0]), "loaded as run results-2") {
		t.Errorf("warnings %q", res[1].Warnings)
	}
}

// A third file whose run takes the experiment role beside another file's
// is refused; --role for it pools them on purpose, with a warning.
func TestSecondExperimentRole(t *testing.T) {
	dir := t.TempDir()
	rows := func(name, outcome string) string { // the name in the row too: no two files alike
		return writeBytes(t, dir, name, []byte(`{"t_ms":0,"latency_ms":3,"outcome":"`+outcome+`","attrs":{"f":"`+name+`"}}`+"\n"))
	}
	baseline, chaos, third := rows("baseline.ndjson", "ok"), rows("chaos.ndjson", "error"), rows("experiment.ndjson", "ok")
	db, _ := openDB(t)
	mustIngest(t, db, Options{Experiment: "x", Roles: map[string]string{"baseline": "control", "chaos": "experiment"}}, baseline, chaos)
	mustRefuse(t, db, Options{Experiment: "x"}, "run experiment would be a second experiment run of experiment x beside chaos", "role", third)
	control := rows("control.ndjson", "ok")
	mustRefuse(t, db, Options{Experiment: "x"}, "run control would be a second control run of experiment x beside baseline", "role", control)
	res := mustIngest(t, db, Options{Experiment: "x", Roles: map[string]string{"experiment": "experiment"}}, third)
	if len(res[0].Warnings) == 0 || !strings.Contains(said(res[0].Warnings[0]), "runs chaos and experiment have the role experiment") {
		t.Errorf("warnings %q, want the pooling said", res[0].Warnings)
	}
	// Several runs of one role in one file are what the file says.
	both := writeBytes(t, filepath.Join(dir, "one"), "both.ndjson", []byte(`{"run":"e1","role":"experiment","outcome":"ok"}`+"\n"+
		`{"run":"e2","role":"experiment","outcome":"ok"}`+"\n"))
	mustIngest(t, db, Options{}, both)
}
