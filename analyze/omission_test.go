package analyze

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/store"
)

// tinySchedule is sent at 10/s (every 100 ms); request 2 takes 250 ms and
// holds up the one-worker generator: 3 goes out at 450 (lag 150), 4 at
// 460 (lag 60), 5 on time again.
const tinySchedule = `{"run":"a","req":0,"attempt":0,"t_ms":0,"latency_ms":10,"outcome":"ok"}
{"run":"a","req":1,"attempt":0,"t_ms":100,"latency_ms":10,"outcome":"ok"}
{"run":"a","req":2,"attempt":0,"t_ms":200,"latency_ms":250,"outcome":"ok"}
{"run":"a","req":3,"attempt":0,"t_ms":450,"latency_ms":10,"outcome":"ok"}
{"run":"a","req":4,"attempt":0,"t_ms":460,"latency_ms":10,"outcome":"ok"}
{"run":"a","req":5,"attempt":0,"t_ms":500,"latency_ms":10,"outcome":"ok"}
{"run":"a","req":6,"attempt":0,"t_ms":600,"latency_ms":10,"outcome":"ok"}
{"run":"a","req":7,"attempt":0,"t_ms":700,"latency_ms":10,"outcome":"ok"}
{"run":"a","req":8,"attempt":0,"t_ms":800,"latency_ms":10,"outcome":"ok"}
{"run":"a","req":9,"attempt":0,"t_ms":900,"latency_ms":10,"outcome":"ok"}
`

func strRows(t *testing.T, r *Result) []string {
	t.Helper()
	var out []string
	for _, row := range r.Rows {
		s := make([]string, len(row))
		for i, v := range row {
			s[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(s, " "))
	}
	return out
}

// By hand: corrected = latency + lag = 10 x7, 70, 160, 250; the lags 0 x8,
// 60, 150. Nearest rank: p50 the 5th, p90 the 9th, p95 the 10th of 10.
// Windows of 200 ms: ticks 0,100 | 200,300 | 400,500 | ..., sends 2 | 1 | 3.
func TestOmissionSchedule(t *testing.T) {
	db := logsDB(t, tinySchedule)
	rate, err := ParseRate("10/1s")
	if err != nil {
		t.Fatal(err)
	}
	m, w, err := Omission(db, OmissionOptions{Interval: rate, Window: 200e6})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a p50 10 100 false 10 10 0", "a p90 10 100 false 10 160 60", "a p95 10 100 false 250 250 150",
		"a p99 10 100 false 250 250 150", "a p99.9 10 100 false 250 250 150", "a max 10 100 false 250 250 150",
	}
	if d := cmp.Diff(want, strRows(t, m)); d != "" {
		t.Errorf("percentiles (-want +got):\n%s", d)
	}
	wantW := []string{"a 0 0 2 2 0 0 0", "a 1 200 2 1 1 1 0", "a 2 400 2 3 -1 0 150", "a 3 600 2 2 0 0 0", "a 4 800 2 2 0 0 0"}
	if d := cmp.Diff(wantW, strRows(t, w)); d != "" {
		t.Errorf("windows (-want +got):\n%s", d)
	}
	// Inferred: the median gap over consecutive req is 100 ms too.
	m2, _, err := Omission(db, OmissionOptions{Window: 200e6, Interval: SendInterval{}})
	if !errors.Is(err, ErrCannotTell) {
		t.Fatalf("an ndjson log without --rate: %v, %v, want ErrCannotTell", m2, err)
	}
}

// A rate of 3/s is an interval of 1000000/3 us: a log sent exactly on it
// (starts rounded down to the us, as a clock reads them) has lags under
// 1 us that are exact fractions, and the ticks fall in their windows
// exactly.
func TestOmissionExactRate(t *testing.T) {
	var b strings.Builder
	for n := 0; n < 9; n++ {
		us := n * 1000000 / 3
		fmt.Fprintf(&b, `{"run":"a","req":%d,"attempt":0,"t_ms":%d.%03d,"latency_ms":1,"outcome":"ok"}`+"\n", n, us/1000, us%1000)
	}
	db := logsDB(t, b.String())
	rate, err := ParseRate("3/1s")
	if err != nil || rate != (SendInterval{1000000, 3}) {
		t.Fatalf("ParseRate(3/1s) = %v, %v", rate, err)
	}
	var lags, expected string
	if err := db.QueryRow(`SELECT string_agg(lag_ms::VARCHAR, ' ' ORDER BY req) FROM omission_requests('a', 1000000, 3)`).Scan(&lags); err != nil {
		t.Fatal(err)
	}
	// start - n I is 0, -1/3, -2/3 us over and over (333333 - 333333.33...), so
	// t0 = -2/3 us and the lags are 2/3, 1/3 and 0 us.
	if want := "0.0006666666666666666 0.0003333333333333333 0.0 0.0006666666666666666 0.0003333333333333333 0.0 0.0006666666666666666 0.0003333333333333333 0.0"; lags != want {
		t.Errorf("lags %s, want %s", lags, want)
	}
	if err := db.QueryRow(`SELECT string_agg(expected::VARCHAR, ' ' ORDER BY "window") FROM omission_windows('a', 1000000, 3, win_ms := 1000)`).Scan(&expected); err != nil {
		t.Fatal(err)
	}
	// Tick 0 is at t0 = -2/3 us, in window -1; ticks 1-3 end at 999999.33 us,
	// in window 0; the last send (tick 8) closes window 2.
	if expected != "1 3 3 2" {
		t.Errorf("expected per window %s, want 1 3 3 2", expected)
	}
}

// HdrHistogram's rule (AbstractHistogram.recordValueWithCountAndExpectedInterval):
// v, then v - e, v - 2e, ... while >= e. omission_backfill's level-by-level
// quantiles equal the quantiles of that multiset written out, over random
// logs with counts, at several e.
func TestOmissionBackfill(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var b strings.Builder
	for i := 0; i < 400; i++ {
		lat := rng.Intn(3000) + rng.Intn(2)*rng.Intn(40000)
		fmt.Fprintf(&b, `{"run":"r%d","req":%d,"attempt":0,"t_ms":%d,"latency_ms":%d.%03d,"outcome":"ok","count":%d}`+"\n",
			i%2, i, i*10, lat/1000, lat%1000, 1+rng.Intn(3))
	}
	db := logsDB(t, b.String())
	for _, e := range []int64{1, 7, 1000, 2500, 40000, 90000} {
		q := fmt.Sprintf(`WITH h AS (SELECT run, round(latency_ms * 1000)::BIGINT AS v, count FROM requests),
			x AS (SELECT run, v - k * %[1]d AS v, count FROM h, LATERAL (SELECT unnest(range(0, greatest(1, v // %[1]d))) AS k)),
			q AS (SELECT run, quantile_disc(v, [0.5, 0.9, 0.95, 0.99, 0.999, 1.0]::DECIMAL(4, 3)[]) AS q, count(*) AS n
			      FROM (SELECT run, v FROM x, range(count)) GROUP BY run)
			SELECT string_agg(run || ':' || n || ':' || list_transform(q, v -> v / 1000)::VARCHAR, ' ' ORDER BY run) FROM q`, e)
		var want, got string
		if err := db.QueryRow(q).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(fmt.Sprintf(`SELECT string_agg(run || ':' || n || ':' || q::VARCHAR, ' ' ORDER BY run) FROM (
				SELECT run, any_value(requests + added) AS n, list(bound_ms ORDER BY quantile = 'max', quantile) AS q
				FROM omission_backfill('a', %d) GROUP BY run)`, e)).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("e = %d us:\n got %s\nwant %s", e, got, want)
		}
	}
	// At the edge: v = 2e adds e (>= e), v = 2e - 1 adds nothing.
	edge := logsDB(t, `{"run":"a","req":0,"t_ms":0,"latency_ms":2,"outcome":"ok"}
{"run":"a","req":1,"t_ms":1,"latency_ms":1.999,"outcome":"ok"}
`)
	var added int64
	if err := edge.QueryRow(`SELECT any_value(added) FROM omission_backfill('a', 1000)`).Scan(&added); err != nil || added != 1 {
		t.Errorf("added %d (%v), want 1: v = 2e adds e, v = 2e - 1 adds none", added, err)
	}
}

// What the analysis refuses, and says why.
func TestOmissionRefusals(t *testing.T) {
	noReq := logsDB(t, `{"run":"a","req":"x1","t_ms":0,"latency_ms":1,"outcome":"ok"}
{"run":"a","req":1,"t_ms":100,"latency_ms":1,"outcome":"ok"}
`)
	rate, _ := ParseRate("10")
	_, _, err := Omission(noReq, OmissionOptions{Interval: rate})
	if !errors.Is(err, ErrCannotTell) || !strings.Contains(err.Error(), "1 of its 2 rows have no numeric req") {
		t.Errorf("rows without req: %v", err)
	}
	_, _, err = Omission(logsDB(t, tinySchedule), OmissionOptions{})
	if !errors.Is(err, ErrCannotTell) || !strings.Contains(err.Error(), "(ndjson)") {
		t.Errorf("no rate, not Vegeta: %v", err)
	}
	for _, s := range []string{"0", "-3", "10/0s", "x", "10/fast"} {
		if _, err := ParseRate(s); err == nil {
			t.Errorf("ParseRate(%q) accepted", s)
		}
	}
}

// A row with count 3 weighs as three rows in the percentiles.
func TestOmissionCount(t *testing.T) {
	three := strings.Replace(tinySchedule, `"req":3,"attempt":0,"t_ms":450,"latency_ms":10,"outcome":"ok"}`, `"req":3,"attempt":0,"t_ms":450,"latency_ms":10,"outcome":"ok","count":3}`, 1)
	m, _, err := Omission(logsDB(t, three), OmissionOptions{Interval: SendInterval{100000, 1}})
	if err != nil {
		t.Fatal(err)
	}
	// corrected: 10 x7, 70, 160 x3, 250 (12): p50 the 6th (10), p90 the 11th (160).
	if got := strRows(t, m)[:2]; !cmp.Equal(got, []string{"a p50 12 100 false 10 10 0", "a p90 12 100 false 10 160 150"}) {
		t.Errorf("count 3: %v", got)
	}
}

// omission and omission_windows find t0 in the pass that reads the
// percentiles (a shift keeps the order); they equal the percentiles and
// windows read from omission_requests' per-request rows, which join every
// row to its run's t0, over random late logs with repeated and missing req,
// at a given rational rate and inferred (by the macro itself and from the
// intervals Go infers once, a MAP literal: one run's name holds a quote).
func TestOmissionOnePass(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var b strings.Builder
	for _, run := range []string{"x", "y", "it's z"} {
		late := 0
		for n := 0; n < 300; n++ {
			if rng.Intn(10) == 0 {
				continue // a record lost
			}
			late = max(0, late+rng.Intn(40)-25)
			us := n*1000000/7 + late*1000 + rng.Intn(5)
			for range 1 + rng.Intn(2) {
				fmt.Fprintf(&b, `{"run":%q,"req":%d,"t_ms":%d.%03d,"latency_ms":%d.%03d,"outcome":"ok"}`+"\n", run, n, us/1000, us%1000, rng.Intn(90), rng.Intn(1000))
			}
		}
	}
	db := logsDB(t, b.String())
	var exp string
	if err := db.QueryRow(`SELECT any_value(experiment) FROM requests`).Scan(&exp); err != nil {
		t.Fatal(err)
	}
	var src omissionSrc
	if err := src.readRuns(db, exp, true); err != nil || src.noInterval != "" {
		t.Fatal(err, src.noInterval)
	}
	intervals := src.intervals
	ref := func(args string) (string, string) {
		qs := "[0.5, 0.9, 0.95, 0.99, 0.999, 1.0]::DECIMAL(4, 3)[]"
		return `WITH r AS (SELECT * FROM omission_requests(` + args + `)),
			g AS (SELECT run, count(latency_ms) AS n, quantile_disc(latency_ms, ` + qs + `) AS l,
				quantile_disc(corrected_ms, ` + qs + `) AS c, quantile_disc(lag_ms, ` + qs + `) AS g FROM r GROUP BY run)
			SELECT run, qs.quantile, n, l[qs.i], c[qs.i], g[qs.i] FROM g, _om_quantiles() qs ORDER BY run, qs.i`,
			`WITH r AS (SELECT * FROM omission_requests(` + args + `))
			SELECT run, floor(start_ms / 250)::BIGINT, count(*), max(lag_ms) FROM r GROUP BY ALL ORDER BY ALL`
	}
	for _, args := range []string{"'" + exp + "', 1000000, 7", "'" + exp + "', intervals := " + intervals, "'" + exp + "'"} {
		main, windows := ref(args)
		want, got := queryStrings(t, db, main), queryStrings(t, db, `SELECT run, quantile, requests, latency_ms, corrected_ms, lag_ms FROM omission(`+args+`)`)
		if d := cmp.Diff(want, got); d != "" || len(got) != 18 {
			t.Errorf("omission(%s) against the per-request rows (-want +got):\n%s", args, d)
		}
		want = queryStrings(t, db, windows)
		got = queryStrings(t, db, `SELECT run, "window", sent, max_lag_ms FROM omission_windows(`+args+`, win_ms := 250) WHERE sent > 0 ORDER BY ALL`)
		if d := cmp.Diff(want, got); d != "" || len(got) < 3*40 {
			t.Errorf("omission_windows(%s) against the per-request rows (-want +got):\n%s", args, d)
		}
	}
}

// queryStrings is a query's rows, each as its values joined by spaces.
func queryStrings(t *testing.T, db interface {
	Query(string, ...any) (*sql.Rows, error)
}, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.TrimSuffix(fmt.Sprintln(vals...), "\n"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// vegetaLines writes Vegeta JSON results of attack run, request n sent at
// t_ms[n] ms (from 2026-12-03T00:00:00Z) and answered in 1 ms.
func vegetaLines(run string, reqs []int, tms []int) string {
	var b strings.Builder
	for i, n := range reqs {
		fmt.Fprintf(&b, `{"attack":%q,"seq":%d,"code":200,"timestamp":"2026-12-03T00:00:%02d.%03d000Z","latency":1000000,"bytes_out":0,"bytes_in":0,"error":"","body":null,"method":"GET","url":"http://127.0.0.1/"}`+"\n",
			run, n, tms[i]/1000, tms[i]%1000)
	}
	return b.String()
}

// Ingest stores each run's median gap between consecutive req of a Vegeta
// file in run_gaps; omission reads it while the run's rows are those it
// came from, and infers again (sorting the run) once they changed.
func TestOmissionStoredGaps(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a.json")
	// a: every 100 ms but 3 and 4 late (tinySchedule); b: no two consecutive
	// req, its gap NULL, stored as such.
	a := vegetaLines("a", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, []int{0, 100, 200, 450, 460, 500, 600, 700, 800, 900})
	b := vegetaLines("b", []int{0, 2}, []int{0, 50})
	if err := os.WriteFile(path, []byte(a+b), 0o644); err != nil {
		t.Fatal(err)
	}
	db := ingestedDB(t, path)
	const (
		kept   = `SELECT run, gap_us, sched_rows, stored FROM _om_runs('a', true, true, true) ORDER BY run`
		fresh  = `SELECT run, gap_us, sched_rows, stored FROM _om_runs('a', true, true, false) ORDER BY run`
		stored = `SELECT g.run, g.gap_us, g.rows, g.check_sum = p.check_sum FROM run_gaps g JOIN _om_runs('a', true, true, false) p USING (run) WHERE g.experiment = 'a' ORDER BY run`
	)
	// expect checks each run's "run gap rows": stored with the print of its
	// rows, the same inferred again, and read back (stored, or inferred
	// when reused is false).
	expect := func(when string, runs []string, reused []bool) {
		t.Helper()
		var st, fr, kp []string
		for i, r := range runs {
			st, fr = append(st, r+" true"), append(fr, r+" false")
			kp = append(kp, fmt.Sprint(r, " ", reused[i]))
		}
		for _, c := range []struct {
			what, q string
			want    []string
		}{{"run_gaps", stored, st}, {"inferred again", fresh, fr}, {"read back", kept, kp}} {
			if d := cmp.Diff(c.want, queryStrings(t, db, c.q)); d != "" {
				t.Errorf("%s, %s (-want +got):\n%s", when, c.what, d)
			}
		}
	}
	expect("after ingest", []string{"a 100000 10", "b <nil> 2"}, []bool{true, true})
	// what Omission reads (readRuns)
	interval := func() int64 {
		t.Helper()
		var num int64
		if err := db.QueryRow(`SELECT num FROM _om_interval('a', NULL, 1, NULL) WHERE run = 'a'`).Scan(&num); err != nil {
			t.Fatal(err)
		}
		return num
	}
	// What is stored is what omission reads...
	if _, err := db.Exec(`UPDATE run_gaps SET gap_us = 123 WHERE run = 'a'`); err != nil {
		t.Fatal(err)
	}
	if got := interval(); got != 123 {
		t.Errorf("interval with a stored gap of 123 us: %d us", got)
	}
	// ...while the rows' print matches: a send moved by 1 ms is inferred again.
	if _, err := db.Exec(`UPDATE requests SET t_ms = t_ms + 1 WHERE run = 'a' AND req = 9`); err != nil {
		t.Fatal(err)
	}
	if got := interval(); got != 100000 {
		t.Errorf("interval after a send moved: %d us, want 100000", got)
	}
	if d := cmp.Diff([]string{"a 100000 10 false", "b <nil> 2 true"}, queryStrings(t, db, kept)); d != "" {
		t.Errorf("after a send moved, read back (-want +got):\n%s", d)
	}
	// An ingest that changes the run stores its gap again: run a sent every
	// 150 ms from req 10 on, its lower median gap still 100 ms; a third run
	// every 20 ms.
	more := a + vegetaLines("a", []int{10, 11}, []int{1050, 1200}) + vegetaLines("c", []int{0, 1}, []int{0, 20}) + b
	if err := os.WriteFile(path, []byte(more), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(ctx, db, ingest.Options{Replace: true}, []string{path}); err != nil {
		t.Fatal(err)
	}
	expect("after --replace", []string{"a 100000 12", "b <nil> 2", "c 20000 2"}, []bool{true, true, true})
	// Only Vegeta files pay for it: an NDJSON log's runs get none.
	nd := logsDB(t, tinySchedule)
	var n int
	if err := nd.QueryRow(`SELECT count(*) FROM run_gaps`).Scan(&n); err != nil || n != 0 {
		t.Errorf("run_gaps of an NDJSON log: %d rows, %v", n, err)
	}
}

// A Vegeta file whose starts a --map puts out of range still loads: its
// runs get no stored gap (working it out would overflow), and omission
// says what is wrong when asked.
func TestOmissionStoredGapsWild(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.json")
	if err := os.WriteFile(path, []byte(vegetaLines("w", []int{0, 1, 2}, []int{0, 100, 200})), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"1e300", "-1e16"} {
		t.Run(m, func(t *testing.T) {
			db := ingestedDB(t)
			if _, err := ingest.Files(context.Background(), db, ingest.Options{Maps: []ingest.Mapping{{Column: "t_ms", Expr: m}}}, []string{path}); err != nil {
				t.Fatalf("ingest with --map t_ms=%s: %v", m, err)
			}
			var n int
			if err := db.QueryRow(`SELECT count(*) FROM run_gaps`).Scan(&n); err != nil || n != 0 {
				t.Errorf("run_gaps: %d rows, %v", n, err)
			}
			if _, _, err := Omission(db, OmissionOptions{Experiment: "w"}); err == nil {
				t.Errorf("omission over starts of %s: no error", m)
			}
		})
	}
}

// With a given rate over a database whose every row has a req and a start,
// each run's rows and first and last req come with the windows' pass
// (wholeRunsSchedule); they must read as readRuns' own pass reads them: the
// same percentiles, windows and notes (the reqs missing between the first
// and the last among them) as the same log beside an experiment with a
// req_text, which takes readRuns' pass.
func TestOmissionWholeRuns(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	var b strings.Builder
	for _, run := range []string{"x", "it's y"} {
		for n := 3; n < 400; n++ {
			if rng.Intn(8) == 0 {
				continue // a record lost
			}
			us := n*1000000/7 + rng.Intn(90000)
			for range 1 + rng.Intn(20)/19 { // a few sent twice
				fmt.Fprintf(&b, `{"run":%q,"req":%d,"t_ms":%d.%03d,"latency_ms":%d,"outcome":"ok"}`+"\n", run, n, us/1000, us%1000, rng.Intn(90))
			}
		}
	}
	whole := logsDB(t, b.String())
	parted := logsDB(t, b.String(), `{"run":"r","req":"k-1","t_ms":1,"latency_ms":1,"outcome":"ok"}`+"\n")
	for db, want := range map[*store.DB]bool{whole: true, parted: false} {
		if got, err := wholeSchedule(db); err != nil || got != want {
			t.Fatalf("wholeSchedule = %v, %v; want %v", got, err, want)
		}
	}
	o := OmissionOptions{Experiment: "a", Interval: SendInterval{1000000, 7}, Window: 250e6}
	mW, wW, err := Omission(whole, o)
	if err != nil {
		t.Fatal(err)
	}
	mP, wP, err := Omission(parted, o)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(asJSON(t, mP)+asJSON(t, wP), asJSON(t, mW)+asJSON(t, wW)); d != "" {
		t.Errorf("omission from the windows' pass against readRuns' (-readRuns +windows):\n%s", d)
	}
	notes := fmt.Sprint(mW.Notes)
	if notes != fmt.Sprint(mP.Notes) || strings.Count(notes, "are not in the log") != 2 || len(wW.Rows) < 2*100 {
		t.Errorf("notes %v (readRuns' %v), %d windows: want the same notes, two runs with reqs missing", mW.Notes, mP.Notes, len(wW.Rows))
	}
}
