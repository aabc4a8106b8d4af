package report

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// The time-shaped sections: the replay timeline (ok share per window against
// the threshold, the stop marked) and the resolution comparison (the same
// traffic counted per 100 ms and per 1 s).

// timelineUnits: damage is windows' column (its "-- Units:" line); ok_share
// is computed here.
var timelineUnits = map[string]string{"ok_share": "share", "damage": store.Units("windows")["damage"]}

// timelineSection decides falsified windows with the same exact comparison as
// falsification and stop_damage (_falsified over _baseline), so the marked
// stop and the table agree with them.
func timelineSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	if ok, err := windowed(q, e, o); !ok || err != nil {
		return nil, err
	}
	w, err := analyze.WindowFor(e, o.Window)
	if err != nil {
		return nil, err
	}
	n, ms := w.SQLArgs()
	sql := fmt.Sprintf(`SELECT c.window_no, c.requests, c.ok, (c.ok / c.requests)::DOUBLE AS ok_share, c.damage,
		       _falsified(c.ok, c.requests, b.sl, b.w, b.l, %s) AS falsified
		FROM windows(?, ?, size_n := ?, size_ms := ?) c, _baseline(?, ?, ?) b
		WHERE b.w > 0 ORDER BY c.window_no`, hypothesis.DecimalLit(o.Margin))
	runs := map[string]*analyze.Result{}
	for _, role := range []string{"control", "experiment"} {
		if runs[role], err = analyze.Query(q, "timeline", timelineUnits, sql, e.Name, role, n, ms, e.Name, n, ms); err != nil {
			return nil, err
		}
	}
	baseline, stop, err := baselineAndStop(q, e, o)
	if err != nil {
		return nil, err
	}
	return timelineDoc(runs, baseline, stop, o), nil
}

// baselineAndStop takes the baseline from falsification and the stop window
// from stop_damage, the analyses the timeline illustrates.
func baselineAndStop(q store.Querier, e store.Experiment, o Options) (baseline, stop float64, err error) {
	f, err := analyze.Falsification(q, analyze.FalsificationOptions{Experiment: e.Name, Window: o.Window, Margins: []float64{o.Margin}})
	if err != nil {
		return 0, 0, err
	}
	s, err := analyze.StopDamage(q, analyze.StopDamageOptions{Experiment: e.Name, Window: o.Window, Margin: o.Margin, MarginSet: true, Ks: []int64{o.StopAfter}})
	if err != nil {
		return 0, 0, err
	}
	baseline, stop = math.NaN(), math.NaN()
	if b := column(f, "baseline"); len(b) > 0 {
		baseline = b[0]
	}
	if st := column(s, "stop_window"); len(st) > 0 {
		stop = st[0]
	}
	return baseline, stop, nil
}

func timelineDoc(runs map[string]*analyze.Result, baseline, stop float64, o Options) *Section {
	threshold := baseline - o.Margin
	base := Chart{
		Title: "Ok share per window", Kind: KindStep, XLabel: "window", YLabel: "ok share (%)",
		HLines: []Line{{Label: "threshold (baseline − margin)", Y: 100 * threshold}},
	}
	series := map[string]Series{}
	for _, role := range []string{"experiment", "control"} {
		share := column(runs[role], "ok_share")
		for i := range share {
			share[i] *= 100
		}
		series[role] = Series{Name: role + " run", Key: o.roleKey(role), X: column(runs[role], "window_no"), Y: share}
	}
	note := fmt.Sprintf("Baseline %s (mean control ok share per window), margin %s, threshold %s. ",
		analyze.Human(baseline, "share"), analyze.Human(o.Margin, "share"), analyze.Human(threshold, "share"))
	var mark []Mark
	if stop == stop {
		mark = []Mark{{Label: fmt.Sprintf("stop (k = %d)", o.StopAfter), X: stop}}
		note += fmt.Sprintf("The experiment stops at window %d (k = %d consecutive falsified windows).", int64(stop), o.StopAfter)
	} else {
		note += fmt.Sprintf("No stop: never %d consecutive falsified windows.", o.StopAfter)
	}
	return &Section{
		Title: "Timeline", Note: note,
		Tables: []Table{resultTable(runs["experiment"], "Experiment run, per window")},
		Charts: timelineCharts(base, series["experiment"], series["control"], mark),
	}
}

// timelineCharts draws both runs on one chart when they have the same
// windows. Runs of different length (or, with duration windows, at
// different times) get a chart each, on its own window axis, so that
// neither is squeezed into a part of the other's; one Y scale keeps them
// comparable. The stop mark belongs to the experiment run.
func timelineCharts(base Chart, exp, ctl Series, stop []Mark) []Chart {
	if slices.Equal(exp.X, ctl.X) {
		// The experiment run is drawn last, on top: it is the one the stop
		// is about.
		base.Series, base.VMarks = []Series{ctl, exp}, stop
		return []Chart{base}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, y := range slices.Concat(exp.Y, ctl.Y, []float64{base.HLines[0].Y}) {
		if y == y {
			lo, hi = min(lo, y), max(hi, y)
		}
	}
	var out []Chart
	for _, s := range []Series{exp, ctl} {
		c := base
		c.Title += ", " + s.Name
		c.Series, c.YRange = []Series{s}, [2]float64{lo, hi}
		if s.Name == exp.Name {
			c.VMarks = stop
		}
		out = append(out, c)
	}
	return out
}

// maxResolutionCharts caps the per-run charts; the peaks table lists every run.
const maxResolutionCharts = 6

// resolutionSection needs t_ms. Its table is `rewind analyze peaks`'s
// comparison (Peaks, ComparePeaks); its charts show each run counted per
// 100 ms and per 1 s bucket as rates, so both fit one axis.
func resolutionSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	fine, err := bucketRates(q, e.Name, 100)
	if err != nil || len(fine) == 0 {
		return nil, err
	}
	coarse, err := bucketRates(q, e.Name, 1000)
	if err != nil {
		return nil, err
	}
	peaks, err := analyze.Peaks(q, analyze.PeaksOptions{Experiment: e.Name, ResolutionsMs: []int64{100, 1000}})
	if err != nil {
		return nil, err
	}
	cmp, err := analyze.ComparePeaks(peaks)
	if err != nil {
		return nil, err
	}
	sec := &Section{Title: "Resolution", Note: resolutionNote(cmp), Tables: []Table{resultTable(quietPeaks(cmp), "")}}
	for _, run := range slices.Sorted(maps.Keys(fine)) {
		if len(sec.Charts) == maxResolutionCharts {
			sec.Note += fmt.Sprintf(" Charts for the first %d runs.", maxResolutionCharts)
			break
		}
		f, c := fine[run], coarse[run]
		sec.Charts = append(sec.Charts, Chart{
			Title: "Run " + run, Kind: KindStep, XLabel: "t (s)", YLabel: "req/s",
			Series: []Series{{Name: "per 100 ms", X: f.X, Y: f.Y}, {Name: "per 1 s", X: c.X, Y: c.Y}},
		})
	}
	return sec, nil
}

// bucketRates returns, per run, the request rate in each bucket of bucketMs
// milliseconds; X is the bucket start in seconds (see bucketSteps).
func bucketRates(q store.Querier, exp string, bucketMs int64) (map[string]*Series, error) {
	r, err := analyze.Query(q, "buckets", nil, `SELECT run, floor(t_ms / ?)::BIGINT AS bucket, sum(count)::BIGINT AS n
		FROM requests WHERE experiment = ? AND t_ms IS NOT NULL GROUP BY ALL ORDER BY run, bucket`, bucketMs, exp)
	if err != nil {
		return nil, err
	}
	perSecond := 1000 / float64(bucketMs)
	runs := map[string]*bucketed{}
	for _, row := range r.Rows {
		runs[fmt.Sprint(row[0])] = runs[fmt.Sprint(row[0])].add(row[1].(int64), number(row[2])*perSecond)
	}
	out := map[string]*Series{}
	for run, b := range runs {
		x, y := bucketSteps(b.buckets, b.values, float64(bucketMs)/1000)
		out[run] = &Series{Name: run, X: x, Y: y}
	}
	return out, nil
}

// bucketed is one run's non-empty buckets, ascending, and their values.
type bucketed struct {
	buckets []int64
	values  []float64
}

func (b *bucketed) add(bucket int64, v float64) *bucketed {
	if b == nil {
		b = &bucketed{}
	}
	b.buckets, b.values = append(b.buckets, bucket), append(b.values, v)
	return b
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
