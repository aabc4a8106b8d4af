package report_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/sparktest"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/report"
	"github.com/rewind-dev/rewind/store"
)

// latencyEdgeLog is a log with latencies for the latency section and the
// control-vs-experiment table: a control and three experiment-role runs
// (one named with a quote and a backslash, one of a single latency row,
// one of two), latencies tied, whole, in ns as Vegeta's, repeating
// decimals, zero and NULL, NULL outcomes, count > 1, negative t_ms and
// rows on 100 ms and 1 s edges.
func latencyEdgeLog() string { return latencyEdgeLogN(300) }

// latencyEdgeLogN is latencyEdgeLog with n rows in each of the larger runs
// (past 2048, a run's quantiles are picked in more than one pass).
func latencyEdgeLogN(n int) string {
	var b strings.Builder
	b.WriteString(`{"record":"experiment","experiment":"lat","params":{"window":40,"affected_from_ms":600,"affected_to_ms":1400}}` + "\n")
	for _, run := range []string{"one", "two", `o'b\\rien`} {
		fmt.Fprintf(&b, `{"record":"run","experiment":"lat","run":"%s","role":"experiment"}`+"\n", run)
	}
	row := func(run string, i int) {
		h := (i*2654435761 + len(run)*97) % 1000
		var lat string
		switch {
		case i%11 == 2:
			lat = "null"
		case i%5 == 0:
			lat = "12.5"
		case i%7 == 1:
			lat = strconv.FormatFloat(float64(h*1234567+i)/1e6, 'g', -1, 64)
		case i%13 == 3:
			lat = "0"
		default:
			lat = strconv.FormatFloat(3+float64(h)/7, 'g', -1, 64)
		}
		if run != "control" && i > n/2 && h%3 == 0 && lat != "null" {
			lat = strconv.FormatFloat(200+float64(h)/3, 'g', -1, 64)
		}
		outcome := `"ok"`
		switch {
		case h < 40 || (run != "control" && i > n/2 && h < 120):
			outcome = `"error"`
		case i%17 == 4:
			outcome = "null"
		}
		t := strconv.Itoa(i*7 - 50)
		if i%9 == 4 {
			t += ".5"
		}
		fmt.Fprintf(&b, `{"experiment":"lat","run":"%s","req":%d,"t_ms":%s,"latency_ms":%s,"outcome":%s,"count":%d}`+"\n",
			run, i, t, lat, outcome, 1+i%3)
	}
	for i := range n {
		for _, run := range []string{"control", "experiment", `o'b\\rien`} {
			row(run, i)
		}
	}
	row("one", 1)
	row("two", 3)
	row("two", 8)
	return b.String()
}

// latencySteps compares the latency steps over experiment exp with their
// DuckDB twins: the groups per run, per run and 100 ms bucket and per side
// (every column but the sum, and the mean from the sum within
// sparktest.MeanTolerance of avg), each run's dots and its slices.
func latencySteps(t *testing.T, db *store.DB, r *analyze.Remote, exp string, ctl, x hypothesis.Side,
	sameRows func(t *testing.T, step string, a store.Querier, qa string, b store.Querier, qb string)) {
	t.Helper()
	mem := r.Querier()
	lit := sqllit.String(exp)
	rows := `experiment = ` + lit + ` AND latency_ms IS NOT NULL AND t_ms IS NOT NULL`
	var n int64
	if err := db.QueryRow(`SELECT count(*) FROM requests WHERE ` + rows).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		return // a log without latencies: the report's steps never run these
	}
	stats := `count(*), count(*) FILTER (WHERE outcome = 'ok'), count(outcome), min(seq)::BIGINT, min(t_ms), max(t_ms), max(latency_ms)`
	for _, c := range []struct {
		step, name, sparkRows, group, where string
		qs                                  []float64
	}{
		{"latency", "_t_latency", analyze.LatencyRows(exp, 0), "run, 0::BIGINT", rows, []float64{0.5, 0.95, 0.99}},
		{"latency buckets", "_t_latency_buckets", analyze.LatencyRows(exp, 100), "run, floor(t_ms / 100)::BIGINT", rows, []float64{0.5, 0.9, 0.999}},
		{"side latency", "_t_side_latency", analyze.SideLatencyRows(ctl, x), "", "", []float64{0.5, 0.95, 0.99}},
	} {
		if err := r.ReportLatency(c.name, c.sparkRows, c.qs); err != nil {
			t.Fatal(err)
		}
		qsel, psel := "", ""
		for i, q := range c.qs {
			qsel += fmt.Sprintf(", quantile_cont(latency_ms, %v)", q)
			psel += fmt.Sprintf(", p%d", i)
		}
		local := `SELECT ` + c.group + `, ` + stats + qsel + `, avg(latency_ms) AS m FROM requests WHERE ` + c.where + ` GROUP BY ALL`
		if c.group == "" {
			side := func(label string, s hypothesis.Side) string {
				return `SELECT '` + label + `', 0::BIGINT, ` + stats + qsel + `, avg(latency_ms) AS m FROM requests WHERE ` + sideSQL(s) + ` AND latency_ms IS NOT NULL GROUP BY 1`
			}
			local = side("control", ctl) + " UNION ALL " + side("experiment", x)
		}
		spark := `SELECT grp, bucket, n, ok, outcomes, min_seq, min_t_ms, max_t_ms, max_ms` + psel + `, sum_ms::DOUBLE / n AS m FROM ` + c.name
		sameRows(t, c.step+" of "+exp, db, `SELECT * EXCLUDE (m) FROM (`+local+`)`, mem, `SELECT * EXCLUDE (m) FROM (`+spark+`)`)
		meansNear(t, c.step, rowsOf(t, db, local), rowsOf(t, mem, spark))
	}
	runs, err := store.QueryStrings(db, `SELECT DISTINCT run FROM requests WHERE `+rows+` ORDER BY run`)
	if err != nil {
		t.Fatal(err)
	}
	class := `CASE WHEN outcome = 'ok' THEN 0 WHEN outcome IS NULL THEN 2 ELSE 1 END`
	for _, run := range runs {
		in := rows + ` AND run = ` + sqllit.String(run)
		if err := r.ReportDots(exp, run); err != nil {
			t.Fatal(err)
		}
		sameRows(t, "dots of "+run, db, `SELECT `+class+`, t_ms, latency_ms, seq::BIGINT FROM requests WHERE `+in,
			mem, `SELECT * FROM _report_dots`)
		var t0, t1 float64
		if err := db.QueryRow(`SELECT min(t_ms), max(t_ms) FROM requests WHERE `+in).Scan(&t0, &t1); err != nil {
			t.Fatal(err)
		}
		w := math.Max(t1-t0, 1) / 7
		if err := r.ReportDotSlices(exp, run, t0, w, 6); err != nil {
			t.Fatal(err)
		}
		d := func(f float64) string { return "'" + strconv.FormatFloat(f, 'g', -1, 64) + "'::DOUBLE" }
		sameRows(t, "dot slices of "+run, db, `SELECT `+class+`, least(floor((t_ms - `+d(t0)+`) / `+d(w)+`), 6)::BIGINT,
			arg_min(t_ms, [latency_ms, seq]), min(latency_ms), arg_max(t_ms, [latency_ms, -seq]), max(latency_ms)
			FROM requests WHERE `+in+` GROUP BY ALL`, mem, `SELECT * FROM _report_dot_slices`)
	}
}

// meansNear fails unless the last column of each row (the mean) is within
// sparktest.MeanTolerance, relative, in a and b (rows as rowsOf gives
// them, sorted, the other columns equal).
func meansNear(t *testing.T, step string, a, b []string) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %d rows locally, %d on Spark", step, len(a), len(b))
		return
	}
	last := func(s string) float64 {
		i := strings.LastIndex(s, ", ")
		f, err := strconv.ParseFloat(strings.TrimSuffix(s[i+2:], "}"), 64)
		if err != nil {
			t.Fatalf("%s: the mean of %s: %v", step, s, err)
		}
		return f
	}
	for i := range a {
		x, y := last(a[i]), last(b[i])
		if math.Abs(x-y) > sparktest.MeanTolerance*math.Max(math.Abs(x), math.Abs(y)) {
			t.Errorf("%s: mean %v locally, %v on Spark: more than %g apart", step, x, y, sparktest.MeanTolerance)
		}
	}
}

// A run of more than 100,000 latency rows is drawn from the fastest and
// the slowest of each slice on Spark too (_report_dot_slices), and the
// report is the local one.
func TestReportDotsThinnedOnSpark(t *testing.T) {
	sparktest.URL(t)
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"record":"experiment","experiment":"big","params":{"window":500}}` + "\n")
	for i := range 101_000 {
		outcome := `"ok"`
		if i%97 == 5 {
			outcome = `"error"`
		}
		fmt.Fprintf(&b, `{"experiment":"big","run":"experiment","req":%d,"t_ms":%d.5,"latency_ms":%d.25,"outcome":%s}`+"\n", i, i/3, 5+(i*7919)%211, outcome)
		if i%10 == 0 {
			fmt.Fprintf(&b, `{"experiment":"big","run":"control","req":%d,"t_ms":%d,"latency_ms":%d.5,"outcome":"ok"}`+"\n", i, i/3, 5+(i*31)%97)
		}
	}
	db := reportDB(t, nil, []string{b.String()})
	r := remoteOf(t, db)
	o := report.Options{Experiment: "big", Version: "test"}
	if !compareReports(t, db, r, "big", o) {
		t.Fatal("the report was refused on Spark: want it built")
	}
	d, err := report.Build(db, o) // the same document as on Spark (compared above)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range d.Sections {
		if s.Title == "Latency" && strings.Contains(s.Note, "Run experiment has 101000 requests: its dots are the fastest and the slowest") {
			return
		}
	}
	t.Error("the latency section does not say the run's dots were thinned")
}
