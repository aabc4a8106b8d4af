package ingest

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/queries"

	_ "github.com/duckdb/duckdb-go/v2"
)

const chaosFixture = "../fixtures/chaos/gunluk.json"

func openDB(t *testing.T) (*sql.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := ensureSchema(db); err != nil {
		t.Fatal(err)
	}
	return db, path
}

func mustIngest(t *testing.T, db *sql.DB, opts Options, paths ...string) []Result {
	t.Helper()
	res, err := Files(context.Background(), db, opts, paths)
	if err != nil {
		t.Fatalf("ingest %v: %v", paths, err)
	}
	return res
}

// snapshot fingerprints every table, so a test can tell the database did not change.
func snapshot(t *testing.T, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, tbl := range []string{"files", "experiments", "runs", "requests", "events"} {
		var n int64
		var h sql.NullString
		q := `SELECT count(*), sum(hash(t::VARCHAR))::VARCHAR FROM ` + tbl + ` t`
		if tbl == "files" {
			q = `SELECT count(*), sum(hash(sha256))::VARCHAR FROM files`
		}
		if err := db.QueryRow(q).Scan(&n, &h); err != nil {
			t.Fatal(err)
		}
		b.WriteString(tbl + ":" + h.String + ";")
	}
	return b.String()
}

// TestBadInput runs the cases under testdata/bad: each input must fail with
// the error in want and leave a database that already held the chaos
// fixture exactly as it was.
func TestBadInput(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/bad/*")
	if len(dirs) == 0 {
		t.Fatal("no cases")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			db, _ := openDB(t)
			mustIngest(t, db, Options{}, chaosFixture)
			before := snapshot(t, db)
			inputs, _ := filepath.Glob(filepath.Join(dir, "*"))
			var input string
			for _, p := range inputs {
				if filepath.Base(p) != "want" {
					input = p
				}
			}
			wantB, err := os.ReadFile(filepath.Join(dir, "want"))
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimRight(string(wantB), "\n")
			_, err = Files(context.Background(), db, Options{}, []string{input})
			if err == nil {
				t.Fatalf("ingest %s: no error, want %q", input, want)
			}
			got := strings.ReplaceAll(flagged(err), dir+string(filepath.Separator), "")
			if !strings.HasPrefix(got, want) || (!strings.HasSuffix(want, ": ") && got != want) {
				t.Errorf("error:\n got %q\nwant %q", got, want)
			}
			if after := snapshot(t, db); after != before {
				t.Errorf("database changed by a failed ingest:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// A bad file among good ones loads nothing: one ingest, one transaction.
func TestOneTransaction(t *testing.T) {
	db, _ := openDB(t)
	before := snapshot(t, db)
	good := writeFile(t, "good.ndjson", `{"run":"a","req":1,"outcome":"ok"}`+"\n")
	_, err := Files(context.Background(), db, Options{}, []string{good, "testdata/bad/bad-latency/input.ndjson"})
	if err == nil {
		t.Fatal("want an error")
	}
	if after := snapshot(t, db); after != before {
		t.Errorf("the good file was loaded although the ingest failed")
	}
}

func TestReingestIsNoop(t *testing.T) {
	db, _ := openDB(t)
	first := mustIngest(t, db, Options{}, chaosFixture)
	before := snapshot(t, db)
	again := mustIngest(t, db, Options{}, chaosFixture, chaosFixture)
	if first[0].Skipped || !again[0].Skipped || !again[1].Skipped {
		t.Fatalf("skipped flags: first %v, again %v", first, again)
	}
	if again[0].Rows != 800 || again[0].Experiment != "gunluk" {
		t.Errorf("skip result %+v: want the earlier ingest's experiment and rows", again[0])
	}
	if after := snapshot(t, db); after != before {
		t.Error("re-ingest changed the database")
	}
}

func TestGunluk(t *testing.T) {
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, chaosFixture)
	got := queryStrings(t, db, `SELECT run || ' ' || role || ' ' || count(*) || ' ' || count(*) FILTER (WHERE outcome = 'ok')
		|| ' ' || count(*) FILTER (WHERE tagged) || ' ' || min(req) || '..' || max(req) FROM requests GROUP BY run, role ORDER BY run`)
	want := []string{"control control 400 384 0 0..399", "experiment experiment 400 340 44 0..399"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	params := queryStrings(t, db, `SELECT params::VARCHAR FROM experiments`)
	if diff := cmp.Diff([]string{`{"n":400,"start":200,"window":40}`}, params); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	// request order is file order
	order := queryStrings(t, db, `SELECT bool_and(req = pos)::VARCHAR FROM
		(SELECT req, row_number() OVER (PARTITION BY run ORDER BY seq) - 1 AS pos FROM requests)`)
	if order[0] != "true" {
		t.Error("seq does not follow the file's order")
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func queryStrings(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s.String)
	}
	return out
}

func sqlOpen(path string) (*sql.DB, error) { return sql.Open("duckdb", path) }

// ensureSchema creates the tables, as store does on a writable open.
func ensureSchema(db *sql.DB) error {
	_, err := db.ExecContext(context.Background(), queries.Schema)
	return err
}

// flagged is err's message as the CLI renders it: parameters as --flags
// (every flag of cmd/rewind has its parameter's name).
func flagged(err error) string {
	return param.Say(err, func(p string) string { return "--" + p })
}

// saidAll is each message as flagged renders it ("" for none).
func saidAll(msgs ...*param.Error) []string {
	var out []string
	for _, m := range msgs {
		if m == nil {
			out = append(out, "")
			continue
		}
		out = append(out, flagged(m))
	}
	return out
}

// said is one message as flagged renders it ("" for none).
func said(m *param.Error) string { return saidAll(m)[0] }

// A known {set} key whose value the analyses could not read is refused
// before any file is read; other keys keep any value.
func TestSetKnownParams(t *testing.T) {
	db, _ := openDB(t)
	for _, c := range []struct{ k, v, want string }{
		{"start", "abc", "set start=abc: want a request position: a whole number of 0 or more"},
		{"start", "-1", "set start=-1: want a request position: a whole number of 0 or more"},
		{"start", "1e308", "set start=1e308: want a request position: a whole number of 0 or more"},
		{"start", "2.5", "set start=2.5: want a request position: a whole number of 0 or more"},
		{"window", "0", "set window=0: want a window of requests: a whole number of 1 or more"},
		{"window_ms", "1_000", "set window_ms=1_000: want a window in ms: a number above 0, at most 4e12"},
	} {
		_, err := Files(context.Background(), db, Options{Params: map[string]string{c.k: c.v}}, []string{chaosFixture})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s=%s: %v, want %s", c.k, c.v, err, c.want)
		}
	}
	if _, err := Files(context.Background(), db, Options{Params: map[string]string{"start": "200", "note": "abc"}}, []string{chaosFixture}); err != nil {
		t.Errorf("start=200, note=abc: %v", err)
	}
}
