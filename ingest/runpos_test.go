package ingest

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest/record"
)

// positionsWrong counts rows whose run_pos is not their 0-based position
// among their (experiment, run)'s rows in seq order: the definition.
func positionsWrong(t *testing.T, db *sql.DB) int64 {
	t.Helper()
	var n int64
	err := db.QueryRow(`SELECT count(*) FROM (
		SELECT run_pos, row_number() OVER (PARTITION BY experiment, run ORDER BY seq) - 1 AS pos FROM requests)
		WHERE run_pos IS DISTINCT FROM pos`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// lineWriter writes files of lines into a fresh folder and returns their paths.
func lineWriter(t *testing.T) func(name string, lines ...string) string {
	dir := t.TempDir()
	return func(name string, lines ...string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// TestRunPosIsTheRunOrder: every way rows come in keeps run_pos the
// position of the row in its run: every real sample file of every format
// into one database (runs from the run column, the tool's grouping, the
// file name), two runs interleaved, a run continued by a second file, a
// file that names no run with --run, --experiment making each file a run,
// --map setting the run, and --replace taking a file out of the middle of
// a run.
func TestRunPosIsTheRunOrder(t *testing.T) {
	db, _ := openDB(t)
	inputs, err := filepath.Glob("testdata/real/*/*/input*")
	if err != nil || len(inputs) < 20 {
		t.Fatalf("real samples: %v (%d)", err, len(inputs))
	}
	for _, in := range inputs {
		mustIngest(t, db, realOptions(in), in)
	}
	if n := positionsWrong(t, db); n > 0 {
		t.Fatalf("after the real samples: %d rows with a wrong run_pos", n)
	}
	write := lineWriter(t)
	a := write("a.ndjson",
		`{"experiment":"x","run":"c","outcome":"ok"}`, `{"experiment":"x","run":"e","outcome":"ok"}`,
		`{"experiment":"x","run":"e","outcome":"error"}`, ``, `{"record":"run","experiment":"x","run":"e","role":"experiment"}`,
		`{"experiment":"x","run":"c","outcome":"ok"}`, `{"experiment":"x","outcome":"ok","run":"c"}`)
	b := write("b.ndjson", `{"experiment":"x","run":"e","outcome":"ok"}`, `{"experiment":"x","run":"c","outcome":"ok"}`)
	anon := write("anon.ndjson", `{"outcome":"ok"}`, `{"outcome":"error"}`)
	mapped := write("mapped.ndjson", `{"experiment":"x","who":"c","outcome":"ok"}`, `{"experiment":"x","who":"e","outcome":"ok"}`)
	// b.ndjson continues a.ndjson's runs: asked for with --append.
	mustIngest(t, db, Options{Append: true}, a, b)
	mustIngest(t, db, Options{Run: "solo", Experiment: "y"}, anon)
	mustIngest(t, db, Options{Experiment: "z", Append: true}, a, b)
	m, err := ParseMap("run=who")
	if err != nil {
		t.Fatal(err)
	}
	mustIngest(t, db, Options{Maps: []Mapping{m}, Append: true}, mapped)
	if n := positionsWrong(t, db); n > 0 {
		t.Fatalf("after the generated files: %d rows with a wrong run_pos", n)
	}
	// a.ndjson changes: --replace takes its rows out of runs x/c and x/e,
	// whose later rows (b.ndjson, mapped.ndjson) keep theirs.
	write("a.ndjson", `{"experiment":"x","run":"c","outcome":"error"}`)
	mustIngest(t, db, Options{Replace: true}, a)
	if n := positionsWrong(t, db); n > 0 {
		t.Errorf("after --replace: %d rows with a wrong run_pos", n)
	}
	var nulls int64
	if err := db.QueryRow(`SELECT count(*) FROM requests WHERE run_pos IS NULL`).Scan(&nulls); err != nil || nulls > 0 {
		t.Errorf("%d rows without run_pos (%v)", nulls, err)
	}
}

// TestRunPosNumbersOlderRows: rows without run_pos (a database from
// before the column, or rows inserted in SQL) get their positions at the
// next ingest, in every run that has such rows; an ingest that fails
// leaves them as they were.
func TestRunPosNumbersOlderRows(t *testing.T) {
	db, _ := openDB(t)
	write := lineWriter(t)
	a := write("a.ndjson", `{"experiment":"x","run":"c","outcome":"ok"}`, `{"experiment":"x","run":"e","outcome":"ok"}`,
		`{"experiment":"x","run":"c","outcome":"error"}`, `{"experiment":"x","run":"e","outcome":"ok"}`)
	mustIngest(t, db, Options{}, a)
	if _, err := db.Exec(`UPDATE requests SET run_pos = NULL`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO requests (experiment, run, role, seq, attempt, outcome, tagged, count, file_id, line)
		VALUES ('y', 'sql', '', 100, 0, 'ok', false, 1, 0, 1), ('y', 'sql', '', 101, 0, 'ok', false, 1, 0, 2)`); err != nil {
		t.Fatal(err)
	}
	unnumbered := func() int64 {
		var n int64
		if err := db.QueryRow(`SELECT count(*) FROM requests WHERE run_pos IS NULL`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	bad := write("bad.ndjson", `{"experiment":"x","run":"c","outcome":"ok"}`, `{"experiment":"x","run":"c","outcome":"ok","latency_ms":"slow"}`)
	if _, err := Files(context.Background(), db, Options{}, []string{bad}); err == nil {
		t.Fatal("a bad file loaded")
	}
	if n := unnumbered(); n != 6 {
		t.Errorf("after a failed ingest: %d rows without run_pos, want the 6 as they were", n)
	}
	b := write("b.ndjson", `{"experiment":"x","run":"e","outcome":"ok"}`, `{"experiment":"z","run":"c","outcome":"ok"}`)
	mustIngest(t, db, Options{Append: true}, b)
	if n := unnumbered(); n != 0 {
		t.Errorf("after the next ingest: %d rows without run_pos", n)
	}
	if n := positionsWrong(t, db); n > 0 {
		t.Errorf("after the next ingest: %d rows with a wrong run_pos", n)
	}
}

// TestReqFromPosIsFillDerived: req taken from run_pos in the insert
// (reqFromPos) is what fillDerived's UPDATE gives after it, row for row,
// over every real sample file and generated files that mix rows with and
// without req and req_text, interleave runs, continue a run in a second
// file, name the run with --run or --experiment, and replace a file.
func TestReqFromPosIsFillDerived(t *testing.T) {
	write := lineWriter(t)
	a := write("a.ndjson",
		`{"experiment":"x","run":"c","outcome":"ok"}`, `{"experiment":"x","run":"e","outcome":"ok","req":7}`,
		`{"experiment":"x","run":"e","outcome":"error"}`, ``, `{"experiment":"x","run":"e","outcome":"ok","req_text":"k"}`,
		`{"experiment":"x","run":"c","outcome":"ok","req":0}`, `{"experiment":"x","outcome":"ok","run":"c"}`)
	b := write("b.ndjson", `{"experiment":"x","run":"e","outcome":"ok"}`, `{"experiment":"x","run":"c","outcome":"ok"}`)
	c := write("c.csv", "run,outcome,req", "c,ok,", "e,ok,3", "c,error,", "e,ok,")
	clf := write("front.log",
		`1.2.3.4 - - [01/May/2024:13:00:00 +0300] "GET /a HTTP/1.1" 200 3 "-" "ua" 0.250 0.001`,
		`1.2.3.4 - - [01/May/2024:13:00:01 +0300] "GET /b HTTP/1.1" 503 3 "-" "ua" 0.010 0.002`)
	anon := write("anon.ndjson", `{"outcome":"ok"}`, `{"outcome":"error","req":5}`, `{"outcome":"ok"}`)
	again := lineWriter(t)("anon.ndjson", `{"outcome":"ok"}`, `{"outcome":"ok"}`)
	load := func(on bool) [][]any {
		defer func(was bool) { reqInInsert = was }(reqInInsert)
		reqInInsert = on
		db, _ := openDB(t)
		inputs, _ := filepath.Glob("testdata/real/*/*/input*")
		for _, in := range inputs {
			mustIngest(t, db, realOptions(in), in)
		}
		mustIngest(t, db, Options{Append: true}, a, b, c)
		mustIngest(t, db, Options{Append: true}, clf)
		mustIngest(t, db, Options{Run: "solo", Experiment: "y"}, anon)
		mustIngest(t, db, Options{Experiment: "z", Append: true}, a, b, anon)
		mustIngest(t, db, Options{Experiment: "z", Append: true}, again)
		rows, err := db.Query(`SELECT seq, experiment, run, req, run_pos FROM requests ORDER BY seq`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out [][]any
		for rows.Next() {
			var seq, pos int64
			var exp, run string
			var req sql.NullInt64
			if err := rows.Scan(&seq, &exp, &run, &req, &pos); err != nil {
				t.Fatal(err)
			}
			out = append(out, []any{seq, exp, run, req, pos})
		}
		return out
	}
	want, got := load(false), load(true)
	if len(want) < 1000 {
		t.Fatalf("%d rows", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("req from the insert (-fillDerived +insert):\n%s", diff)
	}
}

// TestTmsFromTsIsDeriveTimes: t_ms taken from ts in the insert
// (tmsFromTs) is what deriveTimes' UPDATE gives after it, and the files'
// origins too: a log on its own, one whose earliest start is past its
// first batch (lines cut into many chunks), files joining one experiment
// that start after it and before it (the earlier file's rows move).
func TestTmsFromTsIsDeriveTimes(t *testing.T) {
	write := lineWriter(t)
	line := func(end string, rt string) string {
		return `1.2.3.4 - - [01/May/2024:` + end + ` +0300] "GET /a HTTP/1.1" 200 3 "-" "ua" ` + rt + ` 0.001`
	}
	one := write("one.log", line("13:00:00", "0.250"), line("13:00:01", "0.010"), line("13:00:01", "2.500"))
	late := write("late.log", line("13:00:00", "0.000"), line("13:00:00", "0.001"), line("13:00:01", "0.002"),
		line("13:00:02", "0.003"), line("13:00:03", "9.004"), line("13:00:04", "0.005"))
	after := write("after.log", line("13:10:00", "0.100"), line("13:10:01", "0.200"))
	before := write("before.log", line("12:00:00", "0.100"), line("12:00:01", "0.200"))
	load := func(on bool) [][]any {
		defer func(was bool) { tmsInInsert = was }(tmsInInsert)
		tmsInInsert = on
		db, _ := openDB(t)
		mustIngest(t, db, Options{}, one)
		func() {
			defer func(n int) { record.ChunkBytes = n }(record.ChunkBytes)
			record.ChunkBytes = 200 // about a line a chunk: the earliest start comes in a later batch
			mustIngest(t, db, Options{}, late)
		}()
		mustIngest(t, db, Options{Experiment: "z"}, one)
		mustIngest(t, db, Options{Experiment: "z"}, after)
		mustIngest(t, db, Options{Experiment: "z"}, before)
		var out [][]any
		for _, q := range []string{`SELECT seq, experiment, run, t_ms, epoch_us(ts) FROM requests ORDER BY seq`,
			`SELECT file_id, 0, path, 0, epoch_us(t_origin) FROM files ORDER BY file_id`} {
			rows, err := db.Query(q)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var seq, us int64
				var exp, run string
				var tms sql.NullFloat64
				if err := rows.Scan(&seq, &exp, &run, &tms, &us); err != nil {
					t.Fatal(err)
				}
				out = append(out, []any{seq, exp, run, tms, us})
			}
			rows.Close()
		}
		return out
	}
	want, got := load(false), load(true)
	if len(want) != 21 {
		t.Fatalf("%d rows and files", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("t_ms from the insert (-deriveTimes +insert):\n%s", diff)
	}
}
