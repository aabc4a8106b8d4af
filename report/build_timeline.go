package report

import (
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// The time-shaped sections: the replay timeline (the hypothesis's metric
// per window, ok share by default and p95 for a latency canary with
// --metric p95, for both sides on one axis, the threshold as a line, the
// stop marked and the fault window shaded) and the resolution comparison
// (the same traffic counted per 100 ms and per 1 s).

// chartContext is what every chart of a report shares: the sides of the
// hypothesis (control and treatment), the treatment's runs (the charts
// that get the fault window) and the fault window.
type chartContext struct {
	sides    hypothesis.Sides
	hasSides bool
	treated  map[string]bool
	fault    fault
	runFault map[string]fault // runs that store their own fault window
}

func newChartContext(q store.Querier, e store.Experiment, o Options) (*chartContext, error) {
	s, ok, err := reportSides(q, e, o)
	if err != nil {
		return nil, err
	}
	c := &chartContext{sides: s, hasSides: ok, treated: map[string]bool{}}
	treatment := hypothesis.Side{Experiment: e.Name, Role: "experiment"}
	if ok {
		treatment = s.Treatment
	}
	runs, err := sideRuns(q, o, treatment)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		c.treated[r] = true
	}
	if c.fault, err = faultWindow(q, e, o, treatment); err != nil {
		return nil, err
	}
	c.runFault, err = runFaults(q, e.Name)
	return c, err
}

// sideKey is the series key (the colour) of a side: its run, else its role's.
func (o Options) sideKey(s hypothesis.Side, role string) string {
	if s.Run != "" {
		return s.Run
	}
	return o.roleKey(role)
}

// sideName names a side's series: "experiment run", or its run's name
// when that is not the role's ("canary (experiment)").
func (o Options) sideName(s hypothesis.Side, role string) string {
	if k := o.sideKey(s, role); k != role {
		return k + " (" + role + ")"
	}
	return role + " run"
}

// timelineReady: the default hypothesis needs both roles (as the analyses
// do); a named one needs its sides.
func timelineReady(q store.Querier, e store.Experiment, o Options) (bool, error) {
	if o.Hypothesis.IsDefault() && o.Bound == nil {
		return windowed(q, e, o)
	}
	if _, err := analyze.WindowFor(e, o.Window); err != nil {
		return false, nil
	}
	return o.chart.hasSides, nil
}

// timelineSection judges every window as stop_damage does (_judged_windows
// and _breaks, exact), so the marked stop and the table agree with it.
func timelineSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	if ok, err := timelineReady(q, e, o); !ok || err != nil {
		return nil, err
	}
	w, err := analyze.WindowFor(e, o.Window)
	if err != nil {
		return nil, err
	}
	th, err := o.threshold(e)
	if err != nil {
		return nil, err
	}
	// the stop first: on an engine, its windows are those the timeline reads
	stop, err := stopWindow(q, e, o, th)
	if err != nil {
		return nil, err
	}
	tl, err := judgedWindows(q, e, w, o.chart.sides, th)
	if err != nil {
		return nil, err
	}
	return tl.section(o, w, th, stop), nil
}

// threshold is the timeline's bound: Options.Bound, else the margin for a
// share metric, else hypothesis.DefaultTolerance (as stop-damage chooses).
func (o Options) threshold(e store.Experiment) (hypothesis.Bound, error) {
	metric := o.Hypothesis.MetricOrDefault()
	if o.Bound != nil || hypothesis.MetricUnit(metric) != "share" {
		return hypothesis.Threshold(metric, o.Bound, "")
	}
	if err := hypothesis.CheckMargin(o.Margin); err != nil {
		return hypothesis.Bound{}, err
	}
	return hypothesis.Threshold(metric, nil, hypothesis.DecimalLit(o.Margin))
}

// timeline is both sides' windows, judged.
type timeline struct {
	metric              string
	sides               hypothesis.Sides
	control, experiment *analyze.Result
	baseline, threshold float64 // in the metric's unit; NaN without a baseline
}

// judgedWindows reads both sides' windows with their value and verdict.
func judgedWindows(q store.Querier, e store.Experiment, w hypothesis.Window, s hypothesis.Sides, th hypothesis.Bound) (*timeline, error) {
	f, a, err := th.Millionths()
	if err != nil {
		return nil, err
	}
	unit := hypothesis.MetricUnit(s.Metric)
	units := map[string]string{s.Metric: unit, "baseline": unit, "threshold": unit, "damage": "requests"}
	n, ms := w.SQLArgs()
	sql := fmt.Sprintf(`SELECT role, window_no, first_t_ms, last_t_ms, requests, ok, value AS %s, damage,
		       _breaks(value_num, value_den, sl, w, l, %[2]s, %[3]s, _metric_lower_bad(?)) AS falsified,
		       CASE WHEN w > 0 THEN (sl / (w * l) / _metric_per(?))::DOUBLE END AS baseline,
		       ((%[2]s * CASE WHEN w > 0 THEN sl / (w * l) ELSE 0 END + %[3]s) / 1000000 / _metric_per(?))::DOUBLE AS threshold
		FROM _judged_windows(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		WHERE w > 0 OR %[2]s = 0 ORDER BY role, window_no`, strconv.Quote(s.Metric), f, a)
	tl := &timeline{metric: s.Metric, sides: s, baseline: math.NaN(), threshold: math.NaN()}
	args := []any{s.Metric, s.Metric, s.Metric, e.Name, n, ms, s.Metric}
	args = append(args, sideArgs(s.Control)...)
	args = append(args, sideArgs(s.Treatment)...)
	var split any
	if s.Treatment.FromMs != nil {
		split = *s.Treatment.FromMs
	}
	r, err := analyze.Query(q, "timeline", units, sql, append(args, split)...)
	if err != nil {
		return nil, err
	}
	tl.control, tl.experiment = byRole(r, "control"), byRole(r, "experiment")
	if b, t := column(r, "baseline"), column(r, "threshold"); len(t) > 0 {
		tl.baseline, tl.threshold = b[0], t[0]
	}
	return tl, nil
}

// byRole is the rows of one side (its first column, role, left out), so
// both sides are judged in one query.
func byRole(r *analyze.Result, role string) *analyze.Result {
	out := &analyze.Result{Name: r.Name, Columns: r.Columns[1:], Notes: r.Notes}
	for _, row := range r.Rows {
		if row[0] == role {
			out.Rows = append(out.Rows, row[1:])
		}
	}
	return out
}

// sideArgs are a side's experiment, run and role arguments of
// _judged_windows (NULL where the other selects).
func sideArgs(s hypothesis.Side) []any {
	if s.Run != "" {
		return []any{s.Experiment, s.Run, nil}
	}
	return []any{s.Experiment, nil, s.Role}
}

// stopWindow is where stop_damage stops with k = StopAfter; NaN for none.
func stopWindow(q store.Querier, e store.Experiment, o Options, th hypothesis.Bound) (float64, error) {
	r, err := o.stopDamage(q, analyze.StopDamageOptions{Experiment: e.Name, Window: o.Window,
		Ks: []int64{o.StopAfter}, Hypothesis: o.Hypothesis, Bound: &th, Windows: true})
	if err != nil {
		return math.NaN(), err
	}
	if st := column(r, "stop_window"); len(st) > 0 {
		return st[0], nil
	}
	return math.NaN(), nil
}

// axisValues are a metric's values as drawn: shares in %.
func axisValues(metric string, v []float64) []float64 {
	if hypothesis.MetricUnit(metric) != "share" {
		return v
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = 100 * x
	}
	return out
}

// axisLabel is the Y label of a metric's chart.
func axisLabel(metric string) string {
	switch hypothesis.MetricUnit(metric) {
	case "share":
		return strings.ReplaceAll(metric, "_", " ") + " (%)"
	case "ms":
		return metric + " latency (ms)"
	}
	return metric + " (req/s)"
}

func (tl *timeline) section(o Options, w hypothesis.Window, th hypothesis.Bound, stop float64) *Section {
	m := tl.metric
	ctl := Series{Name: o.sideName(tl.sides.Control, "control"), Key: o.sideKey(tl.sides.Control, "control"),
		X: column(tl.control, "window_no"), Y: axisValues(m, column(tl.control, m))}
	exp := Series{Name: o.sideName(tl.sides.Treatment, "experiment"), Key: o.sideKey(tl.sides.Treatment, "experiment"),
		X: column(tl.experiment, "window_no"), Y: axisValues(m, column(tl.experiment, m))}
	thY := axisValues(m, []float64{tl.threshold})[0]
	// Both sides on one axis and one scale; the treatment, the side the
	// stop is about, drawn last, on top.
	c := Chart{Title: metricTitle(m) + " per window", Kind: KindStep, XLabel: "window", YLabel: axisLabel(m),
		Series: []Series{ctl, exp}, HLines: []Line{{Label: "threshold (" + thresholdName(th) + ")", Y: thY}}}
	c.HLines = append(c.HLines, o.sloLines(m)...)
	if hypothesis.MetricUnit(m) == "share" {
		c.YRange, c.YFixed = shareRange(m, slices.Concat(ctl.Y, exp.Y, lineValues(c.HLines))), true
	}
	note := tl.note(th)
	if stop == stop {
		c.VMarks = []Mark{{Label: fmt.Sprintf("stop (k = %d)", o.StopAfter), X: stop}}
		note += fmt.Sprintf(" The experiment stops at window %d (k = %d consecutive falsified windows).", int64(stop), o.StopAfter)
	} else {
		note += fmt.Sprintf(" No stop: never %d consecutive falsified windows.", o.StopAfter)
	}
	c.Bands = windowBands(o.chart.fault, w, tl.experiment)
	name := o.sideName(tl.sides.Treatment, "experiment")
	t := resultTable(tl.experiment, strings.ToUpper(name[:1])+name[1:]+", per window")
	t = dropColumns(t, "first_t_ms", "last_t_ms", "baseline", "threshold")
	return &Section{Title: "Timeline", Note: note, Tables: []Table{t}, Charts: []Chart{c}}
}

func metricTitle(m string) string {
	if m == "ok_share" {
		return "Ok share"
	}
	return strings.ToUpper(m[:1]) + strings.ReplaceAll(m[1:], "_", " ")
}

// thresholdName says how the threshold is made: "baseline − margin".
func thresholdName(th hypothesis.Bound) string {
	switch th.Kind {
	case "margin":
		if th.A.Sign() < 0 {
			return "baseline − margin"
		}
		return "baseline + margin"
	case "tolerance":
		return "baseline with tolerance " + th.Text
	}
	return th.Kind + " " + th.Text
}

func (tl *timeline) note(th hypothesis.Bound) string {
	unit := hypothesis.MetricUnit(tl.metric)
	if tl.metric == "ok_share" && th.Kind == "margin" {
		return fmt.Sprintf("Baseline %s (mean control ok share per window), margin %s, threshold %s.",
			analyze.Human(tl.baseline, "share"), analyze.Human(-ratFloat(th.A), "share"), analyze.Human(tl.threshold, "share"))
	}
	s := fmt.Sprintf("Each window judged on %s: %s; threshold %s", tl.metric, th.Describe(tl.metric), humanIn(tl.threshold, unit))
	if tl.baseline == tl.baseline {
		s += fmt.Sprintf(" (baseline %s, the mean of the control windows)", humanIn(tl.baseline, unit))
	}
	return s + "."
}

func humanIn(v float64, unit string) string {
	s := analyze.Human(v, unit)
	if unit == "ms" || unit == "req/s" {
		s += " " + unit
	}
	return s
}

// sloLines draw --slo on a share axis (in %): the objective on an ok
// share, the error budget it leaves on an error rate.
func (o Options) sloLines(metric string) []Line {
	f, err := strconv.ParseFloat(string(o.SLO), 64)
	if o.SLO == "" || err != nil {
		return nil
	}
	switch metric {
	case "ok_share":
		return []Line{{Label: "SLO " + sloText(o.SLO), Y: 100 * f}}
	case "error_rate":
		return []Line{{Label: "error budget (1 − SLO " + sloText(o.SLO) + ")", Y: 100 * (1 - f)}}
	}
	return nil
}

func lineValues(ls []Line) []float64 {
	out := make([]float64, len(ls))
	for i, l := range ls {
		out[i] = l.Y
	}
	return out
}

// shareRange is a share axis that does not start at the data's minimum,
// where a dip from 99 % to 98 % would fill the chart: ok share from the
// largest multiple of 10 % at or below every value (and the threshold) to
// 100 %; error rate from 0 to the smallest multiple of 10 % at or above
// them. vs are in %.
func shareRange(metric string, vs []float64) [2]float64 {
	lo, hi := 100.0, 0.0
	for _, v := range vs {
		if isFinite(v) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if metric == "error_rate" {
		return [2]float64{0, max(10, math.Min(100, math.Ceil(hi/10)*10))}
	}
	return [2]float64{math.Max(0, math.Min(90, math.Floor(lo/10)*10)), 100}
}

// windowBands is the fault window on a window axis: from the window of
// the start position (count windows) or the first window that ends at or
// after the fault's start, to the last window that starts at or before its
// end (or the treatment's last window, for a start position).
func windowBands(f fault, w hypothesis.Window, exp *analyze.Result) []Band {
	wins, first, last := column(exp, "window_no"), column(exp, "first_t_ms"), column(exp, "last_t_ms")
	if !f.known() || len(wins) == 0 {
		return nil
	}
	from, to := math.NaN(), math.NaN()
	if f.FromPos >= 0 && w.N > 0 {
		from, to = float64(f.FromPos/w.N+1), wins[len(wins)-1]
	} else if isFinite(f.FromMs) {
		for i, n := range wins {
			if last[i] >= f.FromMs && from != from {
				from = n
			}
			if first[i] <= f.ToMs {
				to = n
			}
		}
	}
	if !(from <= to) {
		return nil
	}
	return []Band{{Label: f.Label, From: from, To: to}}
}

// dropColumns leaves columns out of a table.
func dropColumns(t Table, names ...string) Table {
	out := Table{Caption: t.Caption, Omitted: t.Omitted}
	var keep []int
	for i, c := range t.Columns {
		if !slices.Contains(names, c.Name) {
			keep = append(keep, i)
			out.Columns = append(out.Columns, c)
		}
	}
	for _, row := range t.Rows {
		cells := make([]Value, len(keep))
		for j, i := range keep {
			cells[j] = row[i]
		}
		out.Rows = append(out.Rows, cells)
	}
	return out
}

func ratFloat(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

// maxResolutionCharts caps the per-run charts; the peaks table lists every run.
const maxResolutionCharts = 6

// resolutionSection needs t_ms. Its table is `rewind analyze peaks`'s
// comparison (Peaks, ComparePeaks); its charts show each run counted per
// 100 ms and per 1 s bucket as rates, so both fit one axis.
func resolutionSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	hi, sparse := 0.0, []string(nil)
	if o.remote != nil {
		if n, err := o.timedRows(q, e); err != nil || n == 0 {
			return nil, err
		}
		if err := o.remote.ReportBuckets(e.Name, 100, 1000); err != nil {
			return nil, err
		}
	}
	fine, err := bucketRates(q, o, e.Name, 100)
	if err != nil || len(fine) == 0 {
		return nil, err
	}
	coarse, err := bucketRates(q, o, e.Name, 1000)
	if err != nil {
		return nil, err
	}
	cmp, err := peaks100msVs1s(q, o, e.Name)
	if err != nil {
		return nil, err
	}
	sec := &Section{Title: "Resolution", Note: resolutionNote(cmp), Tables: []Table{resultTable(quietPeaks(cmp), "")}}
	for _, run := range slices.Sorted(maps.Keys(fine)) {
		if len(sec.Charts) == maxResolutionCharts {
			sec.Note += fmt.Sprintf(" Charts for the first %d runs.", maxResolutionCharts)
			break
		}
		f, c := fine[run].drawn(), coarse[run].drawn()
		if fine[run].sparse() {
			f = fine[run].busiestPerSecond()
			sparse = append(sparse, run)
		}
		hi = max(hi, slices.Max(append(f.Y, c.Y...)))
		sec.Charts = append(sec.Charts, Chart{
			Title: "Run " + run, Kind: KindStep, XLabel: "t (s)", YLabel: "req/s",
			Series: []Series{f, c}, Bands: o.chart.runBands(run),
		})
	}
	if len(sparse) > 0 {
		sec.Note += fmt.Sprintf(" At 2 requests or fewer in %.0f %% of its 100 ms buckets, a run's 100 ms rate is a comb of 0, 10 and 20 req/s; "+
			"for such a run (%s) the chart draws the busiest 100 ms of each second instead, the same peak.",
			100*sparseShare, strings.Join(sparse, ", "))
	}
	// One scale for every run, from 0, so that runs compare at a glance.
	for i := range sec.Charts {
		sec.Charts[i].YRange = [2]float64{0, hi}
	}
	return sec, nil
}

// sparseShare: a run is sparse when at least this share of its 100 ms
// buckets, first to last, hold 2 requests or fewer. Its 100 ms series
// then reads as a comb of 0, 10 and 20 req/s, so the chart draws the
// busiest 100 ms of each second instead: the same peak as the comb, one
// step per second, beside the 1 s mean it is compared with.
const sparseShare = 0.9

func (b *bucketed) sparse() bool {
	if b == nil || len(b.buckets) == 0 || b.width != 100 {
		return false
	}
	span := b.buckets[len(b.buckets)-1] - b.buckets[0] + 1
	low := span - int64(len(b.buckets)) // empty buckets
	for _, n := range b.counts {
		if n <= 2 {
			low++
		}
	}
	return float64(low) >= sparseShare*float64(span)
}

// busiestPerSecond is the highest 100 ms rate of each second.
func (b *bucketed) busiestPerSecond() Series {
	per := &bucketed{width: 1000}
	for i, k := range b.buckets {
		sec := k / 10
		if n := len(per.buckets); n > 0 && per.buckets[n-1] == sec {
			per.values[n-1] = max(per.values[n-1], b.values[i])
			continue
		}
		per.buckets, per.values = append(per.buckets, sec), append(per.values, b.values[i])
	}
	s := per.drawn()
	s.Name = "busiest 100 ms of each 1 s"
	return s
}

// drawn is the step series of the buckets (see bucketSteps).
func (b *bucketed) drawn() Series {
	if b == nil {
		return Series{}
	}
	x, y := bucketSteps(b.buckets, b.values, float64(b.width)/1000)
	return Series{Name: "per " + duration(float64(b.width)), X: x, Y: y}
}

// bucketRates returns, per run, the request rate in each bucket of bucketMs
// milliseconds.
func bucketRates(q store.Querier, o Options, exp string, bucketMs int64) (map[string]*bucketed, error) {
	sql := `SELECT run, floor(t_ms / ?)::BIGINT AS bucket, sum(count)::BIGINT AS n
		FROM requests WHERE experiment = ? AND t_ms IS NOT NULL GROUP BY ALL ORDER BY run, bucket`
	if o.remote != nil { // the buckets' step
		sql = `SELECT run, bucket, n FROM _report_buckets WHERE width = ? AND ? IS NOT NULL ORDER BY run, bucket`
	}
	r, err := analyze.Query(q, "buckets", nil, sql, bucketMs, exp)
	if err != nil {
		return nil, err
	}
	perSecond := 1000 / float64(bucketMs)
	runs := map[string]*bucketed{}
	for _, row := range r.Rows {
		run := fmt.Sprint(row[0])
		if runs[run] == nil {
			runs[run] = &bucketed{width: bucketMs}
		}
		runs[run].add(row[1].(int64), row[2].(int64), number(row[2])*perSecond)
	}
	return runs, nil
}

// bucketed is one run's non-empty buckets of width ms, ascending, their
// request counts and their rates (req/s).
type bucketed struct {
	width   int64
	buckets []int64
	counts  []int64
	values  []float64
}

func (b *bucketed) add(bucket, n int64, v float64) {
	b.buckets, b.counts, b.values = append(b.buckets, bucket), append(b.counts, n), append(b.values, v)
}

// bucketSteps lays out counts per bucket (non-empty buckets, ascending) as
// a step series, X the bucket start times width: an empty bucket between two
// others is a zero, not skipped (a 5 req/s run counted per 100 ms is 10, 0,
// 10, 0, … and not a flat 10), and a last point closes the last bucket so
// that it is drawn as wide as the others. A zero is placed only at the first
// empty bucket of each gap, as it holds until the next point, so a long
// pause costs one point.
func bucketSteps(buckets []int64, values []float64, width float64) (x, y []float64) {
	for i, b := range buckets {
		x, y = append(x, float64(b)*width), append(y, values[i])
		if i+1 < len(buckets) && buckets[i+1] > b+1 {
			x, y = append(x, float64(b+1)*width), append(y, 0)
		}
	}
	if n := len(buckets); n > 0 {
		x, y = append(x, float64(buckets[n-1]+1)*width), append(y, values[n-1])
	}
	return x, y
}
