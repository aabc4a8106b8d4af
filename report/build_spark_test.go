package report_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/dataset"
	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/internal/sparktest"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/report"
	"github.com/rewind-dev/rewind/store"
)

// The report on Spark (BuildOn) prints what the local report prints: the
// same bytes as text, JSON and HTML, over the seed fixtures and an edge
// log whose every section runs on the engine (times, no latencies: the
// resolution charts, the throughput, the fault window from a position in
// time, amplification and retries), or a refusal that names the section
// without reduce steps (NotOnEngine), never a report with a section
// missing or different. Needs the cluster at REWIND_SPARK.
func TestReportOnSpark(t *testing.T) {
	sparktest.URL(t)
	t.Parallel() // a step waits mostly on the cluster's scheduling: two tests overlap it
	for _, c := range []struct {
		name  string
		paths []string
		logs  []string
		// runs: the options (by name) the report must build on Spark; any
		// other must build or be refused by name
		runs []string
		// only: the log runs only the options of runs (CI time: each is a
		// report of some fifty steps); each option runs on one of chaos
		// and edge
		only bool
	}{
		{name: "chaos", paths: []string{"../fixtures/chaos/gunluk.json"},
			runs: []string{"default", "window 25", "start 120", "margin 0.05"}, only: true},
		{name: "edge", logs: []string{reportEdgeLog()},
			runs: []string{"default", "window 1s", "stop after 2", "planned", "metric error_rate", "baseline-until 1s", "slo 99%", "thresholds"}, only: true},
		{name: "latency", logs: []string{latencyEdgeLog()},
			runs: []string{"default", "metric mean", "metric p90"}},
		{name: "untimed solo", logs: []string{`{"experiment":"solo","run":"a","req":1,"outcome":"ok"}` + "\n" + `{"experiment":"solo","run":"a","req":2,"outcome":"error"}` + "\n"},
			runs: []string{"default"}},
		{name: "hypotheses", paths: []string{"../fixtures/hypotheses/checkout.ndjson"}},
		{name: "k6", paths: []string{"../fixtures/k6/baseline.json", "../fixtures/k6/chaos.json"}},
		{name: "peaks", paths: []string{"../fixtures/peaks/sekil1.csv"}},
		{name: "retry", paths: []string{"../fixtures/retry/tiny.ndjson"}},
		{name: "storm", paths: []string{"../fixtures/storm/tiny.ndjson"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := reportDB(t, c.paths, c.logs)
			r := remoteOf(t, db)
			names, err := store.Experiments(db)
			if err != nil {
				t.Fatal(err)
			}
			built := map[string]bool{}
			for _, exp := range names {
				for _, oc := range reportOptionCases(exp) {
					if len(c.runs) == 0 && oc.name != "default" && oc.name != "window 1s" {
						continue // refused: the refusal is the same with any option
					}
					if c.only && !slices.Contains(c.runs, oc.name) {
						continue
					}
					if latencyOnly[oc.name] != (c.name == "latency") && !(c.name == "latency" && oc.name == "default") {
						continue // the overlay metrics on the latency log, the other options on the others (CI time)
					}
					if compareReports(t, db, r, exp+" "+oc.name, oc.o) {
						built[oc.name] = true
					}
				}
			}
			for _, name := range c.runs {
				if !built[name] {
					t.Errorf("%s: the report with %q was refused on Spark: want it built", c.name, name)
				}
			}
		})
	}
}

// latencyOnly are the option cases run over the latency log only.
var latencyOnly = map[string]bool{"metric mean": true, "metric p90": true}

type optionCase struct {
	name string
	o    report.Options
}

func reportOptionCases(exp string) []optionCase {
	maxErr, _ := hypothesis.ParseBound("max", "20%", "error_rate")
	maxMean, err1 := hypothesis.ParseBound("tolerance", "30%", "mean")
	maxP90, err2 := hypothesis.ParseBound("max", "400ms", "p90")
	if err := errors.Join(err1, err2); err != nil {
		panic(err)
	}
	base := report.Options{Experiment: exp, Version: "test"}
	with := func(f func(*report.Options)) report.Options {
		o := base
		f(&o)
		return o
	}
	return []optionCase{
		{"default", base},
		{"window 25", with(func(o *report.Options) { o.Window = hypothesis.Window{N: 25} })},
		{"window 1s", with(func(o *report.Options) { o.Window = hypothesis.Window{Ms: 1000} })},
		{"stop after 2", with(func(o *report.Options) { o.StopAfter = 2 })},
		{"start 120", with(func(o *report.Options) { o.Start, o.StartSet = 120, true })},
		{"planned", with(func(o *report.Options) { o.Planned = "tag_hash(20260731, req) < 0.05" })},
		{"metric error_rate", with(func(o *report.Options) {
			o.Hypothesis = hypothesis.Hypothesis{Metric: "error_rate"}
			o.Bound = &maxErr
		})},
		{"margin 0.05", with(func(o *report.Options) { o.Margin, o.MarginSet = 0.05, true })},
		{"metric mean", with(func(o *report.Options) {
			o.Hypothesis = hypothesis.Hypothesis{Metric: "mean"}
			o.Bound = &maxMean
		})},
		{"metric p90", with(func(o *report.Options) {
			o.Hypothesis = hypothesis.Hypothesis{Metric: "p90"}
			o.Bound = &maxP90
			o.Window = hypothesis.Window{Ms: 1000}
		})},
		{"baseline-until 1s", with(func(o *report.Options) {
			o.Hypothesis = hypothesis.Hypothesis{Control: "experiment", BaselineUntil: "1s", Metric: "error_rate"}
			o.Bound = &maxErr
			o.Window = hypothesis.Window{Ms: 500}
		})},
		{"slo 99%", with(func(o *report.Options) { o.SLO = "0.99" })},
		{"thresholds", with(func(o *report.Options) {
			for _, th := range []string{"http_reqs: count>1000", "http_req_failed: rate<0.1", "http_reqs: rate>100"} {
				x, err := analyze.ParseThreshold(th)
				if err != nil {
					panic(err)
				}
				o.Thresholds = append(o.Thresholds, x)
			}
		})},
	}
}

// compareReports builds the report both ways and fails unless the text,
// JSON and HTML are the same bytes, or the same error, or Spark refuses it
// naming a report section (then it reports false).
func compareReports(t *testing.T, db *store.DB, r *analyze.Remote, what string, o report.Options) bool {
	t.Helper()
	want, errL := report.Build(db, o)
	got, errS := report.BuildOn(r, o)
	var no *analyze.NotOnEngineError
	switch {
	case errors.As(errS, &no):
		if !strings.HasPrefix(no.Analysis, "report's ") || errL != nil {
			t.Errorf("%s: refused on Spark as %q (locally: %v): want a refusal that names a report section of a report built locally", what, errS, errL)
		}
		return false
	case errL != nil || errS != nil:
		if errL == nil || errS == nil || errL.Error() != errS.Error() {
			t.Errorf("%s: local error %v, Spark error %v", what, errL, errS)
		}
		return errS != nil
	}
	// JSON first: where it differs only in a mean latency (within
	// sparktest.MeanTolerance, docs/scale.md), the text and the HTML, which
	// print those numbers too, are not compared byte for byte
	var ja, jb bytes.Buffer
	if err := report.RenderJSON(&ja, want); err != nil {
		t.Fatal(err)
	}
	if err := report.RenderJSON(&jb, got); err != nil {
		t.Fatal(err)
	}
	if err := sparktest.SameReportJSON(ja.Bytes(), jb.Bytes()); err != nil {
		t.Errorf("%s: json differs: %v\nlocal:\n%s\nSpark:\n%s", what, err, ja.String(), jb.String())
	}
	if !bytes.Equal(ja.Bytes(), jb.Bytes()) {
		return true
	}
	for _, render := range []struct {
		name string
		fn   func(*bytes.Buffer, report.Document) error
	}{
		{"text", func(b *bytes.Buffer, d report.Document) error { return report.RenderText(b, d) }},
		{"html", func(b *bytes.Buffer, d report.Document) error { return report.RenderHTML(b, d) }},
	} {
		var a, b bytes.Buffer
		if err := render.fn(&a, want); err != nil {
			t.Fatal(err)
		}
		if err := render.fn(&b, got); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("%s: %s differs\nlocal:\n%s\nSpark:\n%s", what, render.name, a.String(), b.String())
		}
	}
	return true
}

// reportDB ingests the files and the logs into a new database.
func reportDB(t *testing.T, paths, logs []string) *store.DB {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	for i, l := range logs {
		p := filepath.Join(dir, fmt.Sprintf("log%d.ndjson", i))
		if err := os.WriteFile(p, []byte(l), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	db, err := store.Open(ctx, filepath.Join(dir, "rewind.duckdb"), store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := ingest.Files(ctx, db, ingest.Options{}, paths); err != nil {
		t.Fatal(err)
	}
	return db
}

// remoteOf exports db as a dataset and opens it on the test cluster.
func remoteOf(t *testing.T, db *store.DB) *analyze.Remote {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "ds")
	if _, err := dataset.Export(ctx, db, dir, ""); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.OpenSpark(ctx, sparktest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	r, err := analyze.OpenRemote(ctx, eng, dir, 0)
	if err != nil {
		eng.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// reportEdgeLog is a windowed log with times and no latencies, so that
// every section of its report runs on the engine: two experiment-role
// runs (one named with a quote and a backslash), count > 1, NULL outcomes,
// negative t_ms, rows on the 100 ms and 1 s bucket edges, tagged rows,
// retries, and stored start, plan, window and affected interval.
func reportEdgeLog() string { return reportEdgeLogN(420) }

// reportEdgeLogN is reportEdgeLog with n rows a run (past 21846, each run's
// seqs cross a block of 65536).
func reportEdgeLogN(n int) string {
	var b strings.Builder
	b.WriteString(`{"record":"experiment","experiment":"edge","params":{"start":150,"window":40,"affected_from_ms":800,"affected_to_ms":1600,"planned":"tag_hash(7, req) < 0.25"}}` + "\n")
	b.WriteString(`{"record":"run","experiment":"edge","run":"o'b\\rien","role":"experiment"}` + "\n")
	for i := range n {
		for _, run := range []string{"control", "experiment", `o'b\\rien`} {
			outcome := `"ok"`
			switch {
			case i%7 == 3 || (run != "control" && i > 200*n/420 && i%3 == 0):
				outcome = `"error"`
			case i%11 == 5:
				outcome = `null`
			}
			t := fmt.Sprint(i*5 - 100)
			if i%9 == 4 {
				t = fmt.Sprintf("%d.5", i*5-100)
			}
			attempt, retried := 0, outcome == `"error"` && i%2 == 0
			if i%13 == 6 {
				attempt = 1
			}
			fmt.Fprintf(&b, `{"experiment":"edge","run":"%s","req":%d,"attempt":%d,"retried":%v,"t_ms":%s,"outcome":%s,"tagged":%v,"count":%d}`+"\n",
				run, i, attempt, retried, t, outcome, i%4 == 0, 1+i%3)
		}
	}
	return b.String()
}

// Each of the report's reduce steps brings back the rows its DuckDB twin
// computes over the database (the same multiset, EXCEPT ALL both ways),
// over the edge log and the chaos fixture; and the in-memory database's
// requests, which the report must not read on an engine, raises.
func TestReportStepsOnSpark(t *testing.T) {
	sparktest.URL(t)
	t.Parallel() // a step waits mostly on the cluster's scheduling: two tests overlap it
	seen := map[string]int{}
	for _, c := range []struct {
		paths []string
		logs  []string
	}{
		{nil, []string{reportEdgeLog()}},
		{nil, []string{reportEdgeLogN(22000)}},
		{[]string{"../fixtures/chaos/gunluk.json", "../fixtures/k6/baseline.json"}, nil},
		{nil, []string{latencyEdgeLogN(3000)}},
	} {
		db := reportDB(t, c.paths, c.logs)
		r := remoteOf(t, db)
		names, err := store.Experiments(db)
		if err != nil {
			t.Fatal(err)
		}
		for _, exp := range names {
			reportSteps(t, db, r, exp, seen)
		}
	}
	for _, step := range []string{"runs", "events", "buckets", "from position", "sides", "latency", "latency buckets", "side latency", "dots", "dot slices"} {
		if seen[step] == 0 {
			t.Errorf("reduce step %s: no rows compared", step)
		}
	}
}

// reportSteps compares each step over experiment exp, counting the rows
// compared per step in seen.
func reportSteps(t *testing.T, db *store.DB, r *analyze.Remote, exp string, seen map[string]int) {
	t.Helper()
	sameRows := func(t *testing.T, step string, a store.Querier, qa string, b store.Querier, qb string) {
		t.Helper()
		name, _, _ := strings.Cut(step, " of ")
		name = strings.TrimRight(name, " 0123456789")
		seen[name] += sameRows(t, step, a, qa, b, qb)
	}
	c := struct{ exp string }{exp}
	{
		mem := r.Querier()
		lit := sqllit.String(c.exp)
		if err := r.ReportRuns(c.exp); err != nil {
			t.Fatal(err)
		}
		sameRows(t, "runs", db, `SELECT run, role, min(seq), sum(count)::BIGINT, count(*), count(outcome),
			coalesce(sum(count) FILTER (WHERE outcome = 'ok'), 0)::BIGINT, count(t_ms), count(latency_ms),
			count(*) FILTER (WHERE latency_ms IS NOT NULL AND t_ms IS NOT NULL), bool_or(tagged) IS TRUE,
			count(*) FILTER (WHERE attempt > 0 OR retried)
			FROM requests WHERE experiment = `+lit+` GROUP BY run, role`, mem, `SELECT * FROM _report_runs`)
		if err := r.ReportEvents(c.exp); err != nil {
			t.Fatal(err)
		}
		sameRows(t, "events", db, `SELECT count(*) FILTER (WHERE type = 'k6_metric' AND json_array_length(attrs -> 'thresholds') > 0),
			min(t_ms) FILTER (WHERE type = 'action_start' AND t_ms IS NOT NULL),
			max(t_ms) FILTER (WHERE type IN ('action_start', 'action_end') AND t_ms IS NOT NULL)
			FROM events WHERE experiment = `+lit, mem, `SELECT * FROM _report_events`)
		if err := r.ReportBuckets(c.exp, 100, 1000); err != nil {
			t.Fatal(err)
		}
		sameRows(t, "buckets", db, `SELECT w, run, floor(t_ms / w)::BIGINT, sum(count)::BIGINT
			FROM requests, (VALUES (100), (1000)) AS v(w) WHERE experiment = `+lit+` AND t_ms IS NOT NULL GROUP BY ALL`,
			mem, `SELECT * FROM _report_buckets`)
		from := 200.0
		for _, s := range []hypothesis.Side{
			{Experiment: c.exp, Role: "experiment"},
			{Experiment: c.exp, Run: "control"},
			{Experiment: c.exp, Run: "control", FromMs: &from},
		} {
			for _, pos := range []int64{0, 150, 400, 419, 5000, 21840, 21846, 21999, 22000} {
				if err := r.ReportFromPos(s, pos); err != nil {
					t.Fatal(err)
				}
				sameRows(t, fmt.Sprintf("from position %d of %v", pos, s), db,
					`SELECT min(t_ms) FILTER (WHERE run_pos >= `+fmt.Sprint(pos)+`), max(t_ms) FROM requests WHERE `+sideSQL(s),
					mem, `SELECT * FROM _report_from_pos`)
			}
		}
		ctl, exp := hypothesis.Side{Experiment: c.exp, Role: "control"}, hypothesis.Side{Experiment: c.exp, Role: "experiment", FromMs: &from}
		if err := r.ReportSides(ctl, exp); err != nil {
			t.Fatal(err)
		}
		side := func(label string, s hypothesis.Side) string {
			return `SELECT '` + label + `', sum(count)::BIGINT, (sum(count) FILTER (WHERE outcome = 'ok'))::BIGINT,
				(sum(count) FILTER (WHERE outcome IS NOT NULL))::BIGINT, (sum(count) FILTER (WHERE outcome <> 'ok'))::BIGINT,
				min(t_ms), max(t_ms), count(*), count(latency_ms) FROM requests WHERE ` + sideSQL(s)
		}
		sameRows(t, "sides", db, side("control", ctl)+" UNION ALL "+side("experiment", exp), mem, `SELECT * FROM _report_sides`)
		if c.exp == "lat" { // the latency edge log's (CI time: the fixtures' latencies go through TestReportOnSpark)
			latencySteps(t, db, r, c.exp, ctl, exp, sameRows)
		}
		var no *analyze.NotOnEngineError
		if _, err := report.BuildOn(r, report.Options{Experiment: c.exp}); err != nil && !errors.As(err, &no) {
			t.Fatal(err)
		}
		var n int64
		if err := mem.QueryRow(`SELECT count(*) FROM requests`).Scan(&n); err == nil || !strings.Contains(err.Error(), "a reduce step is missing") {
			t.Errorf("%s: requests of the in-memory database read %d rows (error %v): want an error", c.exp, n, err)
		}
	}
}

// sideSQL is a side as a DuckDB filter over requests.
func sideSQL(s hypothesis.Side) string {
	q := "experiment = " + sqllit.String(s.Experiment)
	if s.Run != "" {
		q += " AND run = " + sqllit.String(s.Run)
	} else {
		q += " AND role = " + sqllit.String(s.Role)
	}
	if s.FromMs != nil {
		q += fmt.Sprintf(" AND t_ms >= %v", *s.FromMs)
	}
	return q
}

// sameRows fails unless qa over a and qb over b give the same multiset of
// rows (EXCEPT ALL both ways empty), and returns how many.
func sameRows(t *testing.T, step string, a store.Querier, qa string, b store.Querier, qb string) int {
	t.Helper()
	ra, rb := rowsOf(t, a, qa), rowsOf(t, b, qb)
	if !slices.Equal(ra, rb) {
		t.Errorf("reduce step %s: rows differ\nDuckDB: %v\nSpark:  %v", step, ra, rb)
	}
	return len(ra)
}

func rowsOf(t *testing.T, db store.Querier, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		v, err := store.ScanAny(rows, len(cols))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%#v", v))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
