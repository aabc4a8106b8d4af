package report

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// The latency view, for a log with latencies and send times: each run's
// latency percentiles in a table; per run, every request as a dot over time
// (ok and error apart, as `vegeta plot` draws them), and per time bucket the
// p50, p95 and p99 latency beside the ok share. Latencies are per row (an
// attempt), over every outcome, as vegeta reports them.

// latencyUnits stay here: the summary is this file's SQL over requests, no
// library macro with a "-- Units:" line.
var latencyUnits = map[string]string{
	"ok_share": "share", "p50_ms": "ms", "p95_ms": "ms", "p99_ms": "ms", "max_ms": "ms",
}

// maxLatencyRuns caps the per-run latency charts; the table lists every run.
const maxLatencyRuns = 6

// The rows a latency chart is drawn from, and how each is classed.
const (
	latencyRows  = `experiment = ? AND latency_ms IS NOT NULL AND t_ms IS NOT NULL`
	latencyClass = `CASE WHEN outcome = 'ok' THEN 'ok' WHEN outcome IS NULL THEN 'no outcome' ELSE 'error' END`
)

func latencySection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	sum, err := latencySummary(q, e.Name, o)
	if err != nil || sum == nil || len(sum.Rows) == 0 {
		return nil, err
	}
	bucketMs, err := latencyBucket(q, e, o)
	if err != nil {
		return nil, err
	}
	per, err := latencyBuckets(q, e.Name, bucketMs, overlayMetric(o), o.remote)
	if err != nil {
		return nil, err
	}
	slo, err := latencyLine(q, e, o)
	if err != nil {
		return nil, err
	}
	sec := &Section{Title: "Latency",
		Note: fmt.Sprintf("Latency of every request (each attempt, any outcome), per run: percentiles (quantile_cont), "+
			"each request as a dot over time, and per %s the p50, p95 and p99; then every run's %s and ok share per %[1]s on one axis each.",
			duration(bucketMs), overlayMetric(o)),
		Tables: []Table{resultTable(sum, "")}}
	var runs []string
	for i, row := range sum.Rows {
		if i == maxLatencyRuns {
			sec.Note += fmt.Sprintf(" Charts for the first %d runs.", maxLatencyRuns)
			break
		}
		run := fmt.Sprint(row[0])
		dots, note, err := latencyDots(q, e.Name, run, o.remote)
		if err != nil {
			return nil, err
		}
		bands := o.chart.runBands(run)
		dots.Bands = bands
		sec.Note += note
		sec.Charts = append(sec.Charts, dots)
		if pct := per[run].percentiles(run, bucketMs); pct != nil {
			pct.HLines, pct.Bands = slo, bands
			sec.Charts = append(sec.Charts, *pct)
		}
		runs = append(runs, run)
	}
	sec.Charts = append(sec.Charts, overlayCharts(per, runs, bucketMs, o, slo)...)
	return sec, nil
}

// latencySummary is the latency table: per run the requests, the ok share,
// p50, p95 and p99 (quantile_cont) and the largest latency; on an engine
// from the latency groups' step (_report_latency, which the bucket and the
// dots read too).
func latencySummary(q store.Querier, exp string, o Options) (*analyze.Result, error) {
	if o.remote == nil {
		return analyze.Query(q, "latency", latencyUnits, `SELECT run, count(*) AS requests,
		       (count(*) FILTER (WHERE outcome = 'ok') / nullif(count(outcome), 0))::DOUBLE AS ok_share,
		       quantile_cont(latency_ms, 0.5) AS p50_ms, quantile_cont(latency_ms, 0.95) AS p95_ms,
		       quantile_cont(latency_ms, 0.99) AS p99_ms, max(latency_ms) AS max_ms
		FROM requests WHERE `+latencyRows+` GROUP BY run ORDER BY min(seq), run`, exp)
	}
	if n, err := runTotal(q, "latency_timed", "true"); err != nil || n == 0 {
		return nil, err
	}
	if err := o.remote.ReportLatency("_report_latency", analyze.LatencyRows(exp, 0), []float64{0.5, 0.95, 0.99}); err != nil {
		return nil, err
	}
	return analyze.Query(q, "latency", latencyUnits, `SELECT grp AS run, n AS requests,
	       (ok / nullif(outcomes, 0))::DOUBLE AS ok_share, p0 AS p50_ms, p1 AS p95_ms, p2 AS p99_ms, max_ms
	FROM _report_latency WHERE ? IS NOT NULL ORDER BY min_seq, run`, exp)
}

// runBands is the fault window on a t (s) axis of a run's chart: the
// run's own, else the report's for a run of the treatment side; other runs
// get none.
func (c *chartContext) runBands(run string) []Band {
	if f, ok := c.runFault[run]; ok {
		return f.secondsBand()
	}
	if !c.treated[run] {
		return nil
	}
	return c.fault.secondsBand()
}

// overlayMetric is the latency drawn for every run on one axis: the
// hypothesis's metric when it is a latency, else p95.
func overlayMetric(o Options) string {
	if m := o.Hypothesis.MetricOrDefault(); hypothesis.MetricUnit(m) == "ms" {
		return m
	}
	return "p95"
}

// latencyLine is the hypothesis's threshold when its metric is a latency:
// an absolute bound (--max 250ms, an SLO) as given, a relative one at its
// value over the control windows' baseline (as the timeline judges).
func latencyLine(q store.Querier, e store.Experiment, o Options) ([]Line, error) {
	m := o.Hypothesis.MetricOrDefault()
	if hypothesis.MetricUnit(m) != "ms" {
		return nil, nil
	}
	th, err := o.threshold(e)
	if err != nil {
		return nil, err
	}
	label := m + " threshold (" + thresholdName(th) + ")"
	if !th.Relative() {
		a, _ := new(big.Rat).Quo(th.A, big.NewRat(1000, 1)).Float64() // µs to ms
		return []Line{{Label: label, Y: a}}, nil
	}
	w, err := analyze.WindowFor(e, o.Window)
	if err != nil || !o.chart.hasSides {
		return nil, nil // no baseline to put it at
	}
	tl, err := judgedWindows(q, e, w, o.chart.sides, th)
	if err != nil || tl.threshold != tl.threshold {
		return nil, err
	}
	return []Line{{Label: label, Y: tl.threshold}}, nil
}

// overlayCharts draw every run on one axis and one scale: the overlay
// metric per bucket beside the ok share per bucket, the fault window
// shaded.
func overlayCharts(per map[string]*latencyRun, runs []string, bucketMs float64, o Options, slo []Line) []Chart {
	m := overlayMetric(o)
	p := duration(bucketMs)
	lat := Chart{Title: m + " latency per " + p + ", every run", XLabel: "t (s)", YLabel: m + " latency (ms)", Half: true,
		HLines: slo, Bands: o.chart.fault.secondsBand()}
	ok := Chart{Title: "Ok share per " + p + ", every run", XLabel: "t (s)", YLabel: "ok share (%)", Half: true,
		Bands: lat.Bands, YFixed: true, HLines: o.sloLines("ok_share")}
	var shares []float64
	for _, run := range runs {
		l := per[run]
		if l == nil {
			continue
		}
		x, y := bucketMiddles(l.buckets, l.metric, bucketMs/1000)
		lat.Series = append(lat.Series, Series{Name: run, Key: run, X: x, Y: y})
		x, y = bucketMiddles(l.buckets, l.share, bucketMs/1000)
		ok.Series = append(ok.Series, Series{Name: run, Key: run, X: x, Y: y})
		shares = append(shares, y...)
	}
	if len(lat.Series) == 0 {
		return nil
	}
	ok.YRange = shareRange("ok_share", append(shares, lineValues(ok.HLines)...))
	return []Chart{lat, ok}
}

// maxDotRows is how many rows of a run are fetched for the dots; past it,
// SQL keeps the fastest and the slowest request of each of dotSlices time
// slices per outcome class, which is what a chart of that width can show,
// and the page thins that further with LTTB.
const (
	maxDotRows = 100_000
	dotSlices  = 5_000
)

// sliceDots are the dots of a thinned run from s (class, t_lo, lo, t_hi,
// hi: a slice's fastest and slowest), in the order they are drawn.
const sliceDots = `SELECT class, t / 1000 AS t, l FROM (SELECT class, t_lo AS t, lo AS l FROM s UNION SELECT class, t_hi, hi FROM s)
		ORDER BY t, l`

// thinnedNote says that run's n requests were thinned to its slices' dots.
func thinnedNote(run string, n int64) string {
	return fmt.Sprintf(" Run %s has %d requests: its dots are the fastest and the slowest of each of %d time slices per outcome.", run, n, dotSlices)
}

// latencyDots is one dot per request of a run, a series per outcome class;
// the note says when the run was thinned in SQL.
func latencyDots(q store.Querier, exp, run string, remote *analyze.Remote) (Chart, string, error) {
	c := Chart{Title: "Run " + run + ": latency per request", Kind: KindPoints, XLabel: "t (s)", YLabel: "latency (ms)"}
	var n int64
	var t0, t1 float64
	span := `SELECT count(*), min(t_ms), max(t_ms) FROM requests WHERE ` + latencyRows + ` AND run = ?`
	if remote != nil {
		span = `SELECT n, min_t_ms, max_t_ms FROM _report_latency WHERE ? IS NOT NULL AND grp = ?`
	}
	if err := q.QueryRow(span, exp, run).Scan(&n, &t0, &t1); err != nil {
		return c, "", err
	}
	if remote != nil {
		return remoteDots(q, c, exp, run, n, t0, t1, remote)
	}
	sql := `SELECT ` + latencyClass + ` AS class, t_ms / 1000 AS t, latency_ms
		FROM requests WHERE ` + latencyRows + ` AND run = ? ORDER BY t_ms, seq`
	args := []any{exp, run}
	note := ""
	if n > maxDotRows {
		// The slowest and the fastest request of each slice; ties go to the
		// first in the log, so the same log draws the same dots.
		sql = `WITH r AS (SELECT ` + latencyClass + ` AS class, t_ms, latency_ms, seq,
		           least(floor((t_ms - ?) / ?), ?)::BIGINT AS slice
		       FROM requests WHERE ` + latencyRows + ` AND run = ?),
		     s AS (SELECT class, arg_min(t_ms, [latency_ms, seq]) AS t_lo, min(latency_ms) AS lo,
		                  arg_max(t_ms, [latency_ms, -seq]) AS t_hi, max(latency_ms) AS hi
		           FROM r GROUP BY class, slice)
		` + sliceDots
		args = []any{t0, math.Max(t1-t0, 1) / dotSlices, dotSlices - 1, exp, run}
		note = thinnedNote(run, n)
	}
	r, err := analyze.Query(q, "latency dots", nil, sql, args...)
	if err != nil {
		return c, "", err
	}
	return dotSeries(c, r), note, nil
}

// dotSeries puts the dots (class, t, latency) in a series per class.
func dotSeries(c Chart, r *analyze.Result) Chart {
	byClass := map[string]*Series{}
	for _, row := range r.Rows {
		class := fmt.Sprint(row[0])
		s := byClass[class]
		if s == nil {
			s = &Series{Name: class}
			byClass[class] = s
		}
		s.X, s.Y = append(s.X, number(row[1])), append(s.Y, number(row[2]))
	}
	for _, class := range []string{"ok", "error", "no outcome"} {
		if s := byClass[class]; s != nil {
			c.Series = append(c.Series, *s)
		}
	}
	return c
}

// remoteDots is latencyDots on an engine: a run's rows as they are up to
// maxDotRows (_report_dots), else the fastest and slowest of each slice
// (_report_dot_slices), ordered and made dots by the local SQL.
func remoteDots(q store.Querier, c Chart, exp, run string, n int64, t0, t1 float64, remote *analyze.Remote) (Chart, string, error) {
	sql := `SELECT ` + analyze.DotClassName + ` AS class, t_ms / 1000 AS t, latency_ms FROM _report_dots ORDER BY t_ms, seq`
	note := ""
	if n > maxDotRows {
		if err := remote.ReportDotSlices(exp, run, t0, math.Max(t1-t0, 1)/dotSlices, dotSlices-1); err != nil {
			return c, "", err
		}
		sql = `WITH s AS (SELECT ` + analyze.DotClassName + ` AS class, t_lo, lo, t_hi, hi FROM _report_dot_slices)
		` + sliceDots
		note = thinnedNote(run, n)
	} else if err := remote.ReportDots(exp, run); err != nil {
		return c, "", err
	}
	r, err := analyze.Query(q, "latency dots", nil, sql)
	if err != nil {
		return c, "", err
	}
	return dotSeries(c, r), note, nil
}

// latencyBucket picks the time bucket of the percentile charts: the
// experiment's duration window when it has one (and it gives at most 500
// buckets), else the smallest round step that cuts the longest run into at
// most 60 buckets of 10 requests or more on average, enough for a p95 to
// mean something.
func latencyBucket(q store.Querier, e store.Experiment, o Options) (float64, error) {
	var span, n float64
	sql := `SELECT coalesce(max(s), 0), coalesce(max(n), 0) FROM (
		SELECT max(t_ms) - min(t_ms) AS s, count(*) AS n FROM requests WHERE ` + latencyRows + ` GROUP BY run)`
	if o.remote != nil {
		sql = `SELECT coalesce(max(max_t_ms - min_t_ms), 0), coalesce(max(n), 0) FROM _report_latency WHERE ? IS NOT NULL`
	}
	if err := q.QueryRow(sql, e.Name).Scan(&span, &n); err != nil {
		return 0, err
	}
	if w, err := analyze.WindowFor(e, o.Window); err == nil && w.Ms > 0 && span/w.Ms <= 500 {
		return w.Ms, nil
	}
	for _, step := range roundSteps {
		if span/step <= 60 && n*step >= 10*span {
			return step, nil
		}
	}
	return math.Ceil(span/60/86_400_000) * 86_400_000, nil
}

// roundSteps are bucket sizes in ms that read well on a time axis.
var roundSteps = []float64{100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000,
	600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000}

// duration names a bucket size: 100 ms, 1.5 s, 2 min, 1 h.
func duration(ms float64) string {
	for _, u := range []struct {
		name string
		ms   float64
	}{{"d", 86_400_000}, {"h", 3_600_000}, {"min", 60_000}} {
		if ms >= u.ms && math.Mod(ms, u.ms) == 0 {
			return strconv.FormatFloat(ms/u.ms, 'f', -1, 64) + " " + u.name
		}
	}
	if ms >= 1000 {
		return strconv.FormatFloat(ms/1000, 'f', -1, 64) + " s"
	}
	return strconv.FormatFloat(ms, 'f', -1, 64) + " ms"
}

// latencyRun is one run's latency statistics per bucket.
type latencyRun struct {
	buckets                      []int64
	share, p50, p95, p99, metric []float64
}

// bucketMetric is the SQL of a latency metric over a bucket's rows:
// quantile_cont as the latency table's percentiles, max, or the mean.
func bucketMetric(m string) string {
	switch m {
	case "max":
		return "max(latency_ms)"
	case "mean":
		return "avg(latency_ms)"
	}
	q := map[string]string{"p50": "0.5", "p90": "0.9", "p95": "0.95", "p99": "0.99", "p99.9": "0.999"}[m]
	if q == "" {
		q = "0.95"
	}
	return "quantile_cont(latency_ms, " + q + ")"
}

func latencyBuckets(q store.Querier, exp string, bucketMs float64, metric string, remote *analyze.Remote) (map[string]*latencyRun, error) {
	var r *analyze.Result
	var err error
	if remote == nil {
		r, err = analyze.Query(q, "latency buckets", nil, `SELECT run, floor(t_ms / ?)::BIGINT AS bucket,
		       (count(*) FILTER (WHERE outcome = 'ok') / nullif(count(outcome), 0))::DOUBLE AS ok_share,
		       quantile_cont(latency_ms, 0.5) AS p50, quantile_cont(latency_ms, 0.95) AS p95,
		       quantile_cont(latency_ms, 0.99) AS p99, `+bucketMetric(metric)+` AS m
		FROM requests WHERE `+latencyRows+` GROUP BY ALL ORDER BY run, bucket`, bucketMs, exp)
	} else {
		r, err = remoteBuckets(q, exp, bucketMs, metric, remote)
	}
	if err != nil {
		return nil, err
	}
	out := map[string]*latencyRun{}
	for _, row := range r.Rows {
		run := fmt.Sprint(row[0])
		l := out[run]
		if l == nil {
			l = &latencyRun{}
			out[run] = l
		}
		l.buckets = append(l.buckets, row[1].(int64))
		l.share = append(l.share, 100*number(row[2]))
		l.p50, l.p95, l.p99 = append(l.p50, number(row[3])), append(l.p95, number(row[4])), append(l.p99, number(row[5]))
		l.metric = append(l.metric, number(row[6]))
	}
	return out, nil
}

// remoteBuckets is latencyBuckets' query over the engine's groups per run
// and bucket (_report_latency_buckets): the same quantiles, the metric's
// among them, the largest latency, or the mean from the sum.
func remoteBuckets(q store.Querier, exp string, bucketMs float64, metric string, remote *analyze.Remote) (*analyze.Result, error) {
	qs := []float64{0.5, 0.95, 0.99}
	m := "p1"
	switch metric {
	case "max":
		m = "max_ms"
	case "mean":
		m = "(sum_ms::DOUBLE / n)"
	case "p50":
		m = "p0"
	case "p99":
		m = "p2"
	case "p90", "p99.9":
		qs, m = append(qs, map[string]float64{"p90": 0.9, "p99.9": 0.999}[metric]), "p3"
	}
	if err := remote.ReportLatency("_report_latency_buckets", analyze.LatencyRows(exp, bucketMs), qs); err != nil {
		return nil, err
	}
	return analyze.Query(q, "latency buckets", nil, `SELECT grp AS run, bucket, (ok / nullif(outcomes, 0))::DOUBLE AS ok_share,
	       p0 AS p50, p1 AS p95, p2 AS p99, `+m+` AS m
	FROM _report_latency_buckets ORDER BY run, bucket`)
}

// percentiles is the run's p50, p95 and p99 per bucket: a point at each
// bucket's middle, a gap where a bucket is empty.
func (l *latencyRun) percentiles(run string, bucketMs float64) *Chart {
	if l == nil {
		return nil
	}
	w := bucketMs / 1000
	pct := Chart{Title: "Run " + run + ": latency percentiles per " + duration(bucketMs), XLabel: "t (s)", YLabel: "latency (ms)"}
	for _, p := range []struct {
		name string
		y    []float64
	}{{"p50", l.p50}, {"p95", l.p95}, {"p99", l.p99}} {
		x, y := bucketMiddles(l.buckets, p.y, w)
		pct.Series = append(pct.Series, Series{Name: p.name, X: x, Y: y})
	}
	return &pct
}

// bucketMiddles places each bucket's value at the bucket's middle and a gap
// (NaN) in the first empty bucket of each run of empty ones, so a line
// breaks where there was nothing to measure.
func bucketMiddles(buckets []int64, values []float64, width float64) (x, y []float64) {
	for i, b := range buckets {
		x, y = append(x, (float64(b)+0.5)*width), append(y, values[i])
		if i+1 < len(buckets) && buckets[i+1] > b+1 {
			x, y = append(x, (float64(b)+1.5)*width), append(y, math.NaN())
		}
	}
	return x, y
}
