package replay

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// TestMetricsAgreeWithSQL extends the property test to every metric and
// threshold form: on generated logs with latencies, replay (the Go
// evaluator over side_windows) finds the same stop window and damage as
// stop_damage for every k and the same falsified windows as
// hypothesis_sweep; and Follow, computing each window's value in Go from
// the log's lines (the nearest-rank quantile, the mean, requests per
// second), decides the same windows as replay. Half the logs are built for
// ties: every baseline window has the same value, and treatment windows
// sit at the threshold, one microsecond below or above it.
func TestMetricsAgreeWithSQL(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261201, 11))
	logs := make([]genLog, 140)
	for i := range logs {
		logs[i] = generateMetric(rng, i)
	}
	db, paths := ingestLogs(t, logs)
	ctx := context.Background()
	ties, splits, metrics := 0, 0, map[string]int{}
	for i, g := range logs {
		rec, err := Load(ctx, db, Config{Experiment: g.name, Window: g.window, Hypothesis: g.hyp, Bound: g.bound})
		if err != nil {
			t.Fatalf("%s (%s): %v", g.name, g.hyp.Metric, err)
		}
		metrics[g.hyp.Metric]++
		verdicts, got := replayAll(t, rec)
		what := fmt.Sprintf("%s (%s, window %s, %s %s, %+v)", g.name, g.hyp.Metric, g.window, g.bound.Kind, g.bound.Text, g.hyp)
		if diff := cmp.Diff(sqlBoundStops(t, db, g, rec.Sides), got); diff != "" {
			t.Errorf("%s: stop-damage vs replay (-sql +replay):\n%s", what, diff)
		}
		if diff := cmp.Diff(sqlSweep(t, db, g, rec.Sides), falsified(valued(verdicts, g.hyp.Metric))); diff != "" {
			t.Errorf("%s: hypothesis_sweep vs replay (-sql +replay):\n%s", what, diff)
		}
		for _, v := range verdicts {
			if v.Value != nil && v.Value.Cmp(v.Threshold) == 0 {
				ties++
			}
		}
		switch {
		case g.hyp.Control == "" && g.hyp.BaselineUntil == "":
			followAgrees(t, paths[i], rec, verdicts)
		case g.hyp.BaselineUntil != "":
			d, err := time.ParseDuration(g.hyp.BaselineUntil)
			if err != nil {
				t.Fatal(err)
			}
			ms := float64(d) / float64(time.Millisecond)
			followSplitAgrees(t, paths[i], rec, verdicts, &ms)
			splits++
		}
	}
	if splits < 10 {
		t.Errorf("only %d logs split in time: the generator no longer tests watch's split", splits)
	}
	if ties < 30 {
		t.Errorf("only %d windows tie the threshold: the generator no longer tests ties", ties)
	}
	for _, m := range hypothesis.Metrics {
		if metrics[m] == 0 && m != "ok_share" {
			t.Errorf("no generated log judges %s", m)
		}
	}
}

func sqlBoundStops(t *testing.T, db store.Handle, g genLog, s hypothesis.Sides) []stopRow {
	t.Helper()
	f, a := millionths(t, g.bound)
	n, ms := sizeArgs(g)
	return queryStops(t, db, fmt.Sprintf(`SELECT k, coalesce(stop_window, 0), damage_until_stop
		FROM stop_damage(?, size_n := ?, size_ms := ?, ks := [1, 2, 3, 4, 5], f := %s, a := %s%s)`, f, a, s.Args()), g.name, n, ms)
}

func sqlSweep(t *testing.T, db store.Handle, g genLog, s hypothesis.Sides) falsRow {
	t.Helper()
	lit, err := g.bound.SQL()
	if err != nil {
		t.Fatal(err)
	}
	n, ms := sizeArgs(g)
	q := fmt.Sprintf(`SELECT experiment_falsified, experiment_windows, coalesce(first_falsified_window, 0)
		FROM hypothesis_sweep(?, [%s], size_n := ?, size_ms := ?%s)`, lit, s.Args())
	var r falsRow
	if err := db.QueryRowContext(context.Background(), q, g.name, n, ms).Scan(&r.Falsified, &r.Windows, &r.First); err != nil {
		t.Fatal(err)
	}
	return r
}

func millionths(t *testing.T, b *hypothesis.Bound) (string, string) {
	t.Helper()
	m := big.NewRat(1000000, 1)
	f, a := new(big.Rat).Mul(b.F, m), new(big.Rat).Mul(b.A, m)
	if !f.IsInt() || !a.IsInt() {
		t.Fatalf("bound %s is not whole millionths", b.Text)
	}
	return f.Num().String(), a.Num().String()
}

// valued counts the verdicts with a value: what hypothesis_sweep counts as
// a window.
func valued(vs []Verdict, metric string) []Verdict {
	var out []Verdict
	for _, v := range vs {
		if v.Value != nil || (hypothesis.MetricUnit(metric) == "share" && v.OKShare != nil) {
			out = append(out, v)
		}
	}
	return out
}

var latencyMetrics = []string{"p50", "p90", "p95", "p99", "p99.9", "max", "mean"}

func generateMetric(rng *rand.Rand, i int) genLog {
	g := genLog{name: fmt.Sprintf("m%03d", i)}
	if i%2 == 0 {
		return g.latencyTies(rng)
	}
	return g.randomMetric(rng)
}

func mustBound(kind, text, metric string) *hypothesis.Bound {
	b, err := hypothesis.ParseBound(kind, text, metric)
	if err != nil {
		panic(err)
	}
	return &b
}

// latencyTies: count windows; every baseline window's latencies are all L
// ms, so its value is L for every latency metric and the baseline is L
// exactly; the threshold T is then an integral number of microseconds, and
// each treatment window's latencies are all T - 1 µs, T or T + 1 µs.
func (g genLog) latencyTies(rng *rand.Rand) genLog {
	metric := latencyMetrics[rng.IntN(len(latencyMetrics))]
	n := 1 + rng.IntN(8)
	g.window = hypothesis.Window{N: int64(n)}
	g.hyp = hypothesis.Hypothesis{Metric: metric}
	lus := int64(1000 * (10 + rng.IntN(190)))
	var tus int64
	switch rng.IntN(3) {
	case 0:
		p := []int{0, 10, 20, 25, 50}[rng.IntN(5)]
		g.bound = mustBound("tolerance", fmt.Sprintf("%d%%", p), metric)
		tus = lus + lus*int64(p)/100
	case 1:
		d := rng.IntN(80)
		g.bound = mustBound("tolerance", fmt.Sprintf("%dms", d), metric)
		tus = lus + int64(d)*1000
	default:
		tus = int64(1000*(5+rng.IntN(300))) + int64(rng.IntN(1000))
		g.bound = mustBound("max", fmt.Sprintf("%dus", tus), metric)
	}
	if g.hyp.Control = ""; rng.IntN(3) == 0 {
		g.hyp.Control, g.hyp.Treatment = "control-run", "experiment-run"
	}
	var ctl, exp []map[string]any
	for range 1 + rng.IntN(4) {
		for range n {
			ctl = append(ctl, g.latRow(rng, "control", float64(lus)/1000))
		}
	}
	for range 1 + rng.IntN(10) {
		v := tus + int64(rng.IntN(3)) - 1
		for range n {
			exp = append(exp, g.latRow(rng, "experiment", float64(v)/1000))
		}
	}
	g.lines = interleave(rng, ctl, exp)
	return g
}

func (g genLog) latRow(rng *rand.Rand, role string, ms float64) map[string]any {
	r := g.row(rng, role, rng.IntN(4) > 0)
	r["latency_ms"] = ms
	return r
}

// randomMetric: any metric and threshold form, count or duration windows,
// random latencies (some finer than a microsecond, some missing),
// pre-binned rows where the metric allows them, named runs, and time
// splits.
func (g genLog) randomMetric(rng *rand.Rand) genLog {
	all := append([]string{"error_rate", "throughput", "ok_share"}, latencyMetrics...)
	metric := all[rng.IntN(len(all))]
	g.hyp = hypothesis.Hypothesis{Metric: metric}
	if rng.IntN(2) == 0 && metric != "throughput" {
		g.window = hypothesis.Window{N: int64(1 + rng.IntN(12))}
	} else {
		g.window = hypothesis.Window{Ms: float64([]int{50, 100, 250}[rng.IntN(3)])}
	}
	switch metric {
	case "error_rate":
		g.bound = []*hypothesis.Bound{mustBound("margin", "0.05", metric), mustBound("max", "25%", metric),
			mustBound("tolerance", "50%", metric)}[rng.IntN(3)]
	case "ok_share":
		g.bound = []*hypothesis.Bound{mustBound("margin", "0.125", metric), mustBound("min", "0.75", metric)}[rng.IntN(2)]
	case "throughput":
		g.bound = []*hypothesis.Bound{mustBound("tolerance", "20%", metric), mustBound("min", "40/s", metric),
			mustBound("tolerance", "10/s", metric)}[rng.IntN(3)]
	default:
		g.bound = []*hypothesis.Bound{mustBound("tolerance", "10%", metric), mustBound("tolerance", "15.5ms", metric),
			mustBound("max", "60ms", metric)}[rng.IntN(3)]
	}
	quantile := quantiles[metric] != nil
	pOK := rng.Float64()
	var ctl, exp []map[string]any
	for _, role := range []string{"control", "experiment"} {
		t := 0.0
		slow := 1 + float64(rng.IntN(3))*0.5
		for range 1 + rng.IntN(80) {
			r := g.row(rng, role, rng.Float64() < pOK)
			t += float64(rng.IntN(40)) * float64(1+9*rng.IntN(2))
			r["t_ms"] = t
			if rng.IntN(8) > 0 {
				lat := float64(rng.IntN(50000)) / 1000 * slow
				if rng.IntN(4) == 0 {
					lat += float64(rng.IntN(10)) / 10000 // finer than a microsecond: read rounded
				}
				r["latency_ms"] = lat
			}
			if !quantile && rng.IntN(5) == 0 {
				r["count"] = 1 + rng.IntN(4)
			}
			if role == "control" {
				ctl = append(ctl, r)
			} else {
				exp = append(exp, r)
			}
		}
	}
	switch rng.IntN(4) {
	case 0:
		g.hyp.Control, g.hyp.Treatment = "control-run", "experiment-run"
	case 1:
		// The experiment run split in time at one of its rows: the
		// baseline is its first part.
		if at := exp[len(exp)/2]["t_ms"].(float64); at > exp[0]["t_ms"].(float64) {
			g.hyp.BaselineUntil = fmt.Sprintf("%gms", at)
		}
	}
	g.lines = interleave(rng, ctl, exp)
	return g
}

// TestWindowsArrowEqualsScan: the windows replay reads as Arrow batches
// (from a *sql.DB) are those read row by row (from a *sql.Tx, which lends
// no connection), for every metric, count and duration windows, time
// splits and windows without t_ms, over more than one batch.
func TestWindowsArrowEqualsScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261201, 17))
	logs := make([]genLog, 60)
	for i := range logs {
		logs[i] = generateMetric(rng, i)
	}
	// one log of 5000 windows a side: more than two batches
	long := genLog{name: "long", window: hypothesis.Window{N: 1}, hyp: hypothesis.Hypothesis{Metric: "p95"},
		bound: mustBound("tolerance", "20%", "p95")}
	var ctl, exp []map[string]any
	for i := range 5000 {
		ctl = append(ctl, long.latRow(rng, "control", float64(rng.IntN(90000))/1000))
		exp = append(exp, long.latRow(rng, "experiment", float64(rng.IntN(90000))/1000))
		ctl[i]["t_ms"], exp[i]["t_ms"] = float64(i), float64(i)+0.5
	}
	long.lines = interleave(rng, ctl, exp)
	logs = append(logs, long)
	db, _ := ingestLogs(t, logs)
	sdb := db.(*store.DB)
	ctx := context.Background()
	tx, err := sdb.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	ratEq := cmp.Comparer(func(a, b *big.Rat) bool { return (a == nil) == (b == nil) && (a == nil || a.Cmp(b) == 0) })
	valued, many := 0, 0
	for _, g := range logs {
		c := Config{Experiment: g.name, Window: g.window, Hypothesis: g.hyp, Bound: g.bound}
		fromArrow, err := Load(ctx, db, c)
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		fromScan, err := Load(ctx, tx, c)
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		if diff := cmp.Diff(fromScan, fromArrow, ratEq); diff != "" {
			t.Errorf("%s (%s): (-scan +arrow):\n%s", g.name, g.hyp.Metric, diff)
		}
		for _, w := range fromArrow.Windows {
			if w.Value != nil {
				valued++
			}
		}
		if len(fromArrow.Windows) > 2048 {
			many++
		}
		// both sides at once, as replay reads them
		q := fmt.Sprintf(`SELECT role, %s FROM _hyp_windows(?, size_n := ?, size_ms := ?%s) ORDER BY role, window_no`,
			windowColumns(g.hyp.Metric), fromArrow.Sides.Args())
		a, err := readWindows(ctx, db, q, fromArrow.Experiment, fromArrow.Window, g.hyp.Metric)
		if err != nil {
			t.Fatal(err)
		}
		s, err := readWindows(ctx, tx, q, fromArrow.Experiment, fromArrow.Window, g.hyp.Metric)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(s, a, ratEq); diff != "" {
			t.Errorf("%s (%s), both sides: (-scan +arrow):\n%s", g.name, g.hyp.Metric, diff)
		}
		// windows that arrive out of order (here backwards, the sides
		// interleaved) are put in order, by both reads
		back := strings.Replace(q, "ORDER BY role, window_no", "ORDER BY window_no DESC, role", 1)
		for _, src := range []store.Handle{db, tx} {
			r, err := readWindows(ctx, src, back, fromArrow.Experiment, fromArrow.Window, g.hyp.Metric)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(a, r, ratEq); diff != "" {
				t.Errorf("%s (%s), read backwards: (-in order +backwards):\n%s", g.name, g.hyp.Metric, diff)
			}
		}
	}
	if valued == 0 || many == 0 {
		t.Errorf("%d windows with a value, %d logs with more than one batch of windows: the test no longer compares them", valued, many)
	}
	t.Logf("%d windows with a value, %d logs with more than one batch of windows", valued, many)
}
