package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/ab"

	"github.com/google/go-cmp/cmp"
)

// TestABLayouts: ab 2.3 writes Unix seconds and ms; ab of httpd 2.0 wrote
// APR time (µs) and µs times, shifted to ms exactly. Every row stands for
// one request of unknown outcome, in the file's run.
func TestABLayouts(t *testing.T) {
	path := writeFile(t, "old.tsv", ab.Header+"\n"+
		"Wed Dec 02 14:27:22 2026\t1796221642123456\t1001\t321999\t323000\t7\n"+
		"Wed Dec 02 14:27:22 2026\t1796221642000001\t0\t5\t5\t0\n")
	db, _ := openDB(t)
	res := mustIngest(t, db, Options{}, path)
	if res[0].Format != ab.Name {
		t.Fatalf("detected as %q", res[0].Format)
	}
	got := queryStrings(t, db, `SELECT concat_ws(' | ', run, strftime(ts, '%H:%M:%S.%f'), latency_ms, coalesce(outcome, 'NULL'), count, attrs) FROM requests ORDER BY seq`)
	want := []string{
		`old | 14:27:22.123456 | 323.0 | NULL | 1 | {"ctime_ms":1.001,"dtime_ms":321.999,"starttime":"Wed Dec 02 14:27:22 2026","wait_ms":0.007}`,
		`old | 14:27:22.000001 | 0.005 | NULL | 1 | {"ctime_ms":0,"dtime_ms":0.005,"starttime":"Wed Dec 02 14:27:22 2026","wait_ms":0}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestABMapOutcome: the outcome the file lacks can be given with --map.
func TestABMapOutcome(t *testing.T) {
	db, _ := openDB(t)
	m, err := ParseMap("outcome=CASE WHEN latency_ms < 323 THEN 'ok' ELSE 'timeout' END")
	if err != nil {
		t.Fatal(err)
	}
	mustIngest(t, db, Options{Maps: []Mapping{m}}, "testdata/real/ab/nginx-limit-rate/input.tsv")
	got := queryStrings(t, db, `SELECT outcome || ' ' || count(*) FROM requests GROUP BY outcome ORDER BY outcome`)
	if diff := cmp.Diff([]string{"ok 2", "timeout 10"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestABErrors: a malformed row names file, line and field.
func TestABErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"starttime\tseconds\tctime\tdtime\tttime\n", `x.tsv:1: bad CSV: wrong number of fields`},
		{ab.Header + "\nWed\t1796221642\t0\t1\t1\n", `x.tsv:2: bad CSV: wrong number of fields`},
		{ab.Header + "\nWed\t-1\t0\t1\t1\t0\n", `x.tsv:2: field "seconds": want a whole number ≥ 0, got "-1"`},
		{ab.Header + "\nWed\t1796221642\t0\t1\t1\t0.5\n", `x.tsv:2: field "wait": want a whole number ≥ 0, got "0.5"`},
	} {
		db, _ := openDB(t)
		path := writeFile(t, "x.tsv", c.body)
		_, err := Files(context.Background(), db, Options{From: ab.Name}, []string{path})
		if err == nil || !strings.HasSuffix(err.Error(), c.want) && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %s", c.body, err, c.want)
		}
	}
}

func FuzzAB(f *testing.F) {
	fuzzFormat(f, ab.Name, "testdata/real/ab/*/input*", "testdata/bad/ab-*/input*")
}
