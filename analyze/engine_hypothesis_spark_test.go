package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// spanLog is edgeLog with enough rows that each run's seqs cross a block
// of 65536 (the count windows' positions are counted per block), a second
// experiment of one run without a role, and a third of one request a row
// (latency quantiles): NULL latencies, ties, latencies on a half
// microsecond, negative t_ms.
func spanLog() string {
	var b strings.Builder
	b.WriteString(edgeLog(22000))
	b.WriteString(`{"experiment":"solo","run":"only","req":1,"t_ms":5,"latency_ms":3,"outcome":"ok","tagged":true}` + "\n" +
		`{"experiment":"solo","run":"only","req":2,"t_ms":15,"latency_ms":3,"outcome":"error","tagged":false}` + "\n")
	for i := range 400 {
		for _, run := range []string{"control", "experiment"} {
			lat := fmt.Sprintf("%d.%04d", i%37, []int{5, 15, 25, 0, 4999, 5001}[i%6])
			if i%9 == 2 {
				lat = "null"
			}
			if run == "experiment" && i > 200 {
				lat = fmt.Sprintf("%d.5", 20+i%41)
			}
			fmt.Fprintf(&b, `{"experiment":"lat","run":"%s","req":%d,"t_ms":%d,"latency_ms":%s,"outcome":"%s","tagged":%v}`+"\n",
				run, i, i*7-300, lat, []string{"ok", "ok", "ok", "error"}[i%4], i%5 == 0)
		}
	}
	return b.String()
}

// Falsification on Spark equals the local one over the seed fixtures (the
// chaos log, untimed; k6's, whole seconds), the hypotheses fixture and the
// edge log (two experiment-role runs, count > 1, NULL outcome and latency,
// negative t_ms, rows on window edges, seqs across a block): count and
// duration windows, margins and thresholds, the refusals (no t_ms, no
// baseline) word for word; the windows step's rows equal _hyp_windows's.
// Hypotheses that name their runs (in the experiment or another), and every
// metric, and a run split at a time (windows counted within each part),
// likewise: the latency quantiles where q·n is whole (windows of 10
// and 20) and where it is not, over NULL latencies and latencies on a half
// microsecond, and their refusals (no latency, count > 1). Stop-damage, over the same windows, likewise
// (its ks, margins and thresholds), its streaks judged on the cluster.
// A split at an event in an experiment without events fails as locally,
// with --by too (--by itself: TestHypothesisByOnSpark; splits at events:
// TestSplitAtEventOnSpark).
func TestHypothesisWindowsOnSpark(t *testing.T) {
	sparkURL(t)
	t.Parallel() // a step waits mostly on the cluster's scheduling: two tests overlap it
	local := ingestedDB(t, "../fixtures/chaos/gunluk.json", "../fixtures/k6/chaos.json", "../fixtures/hypotheses/checkout.ndjson")
	edge := logsDB(t, spanLog())
	for _, db := range []*store.DB{local, edge} {
		r := onSpark(t, sparkDataset(t, db))
		names, err := store.Experiments(db)
		if err != nil {
			t.Fatal(err)
		}
		for _, exp := range names {
			for _, o := range falsificationCases(exp) {
				compareFalsification(t, db, r, o)
			}
			for _, o := range stopDamageCases(exp) {
				compareStopDamage(t, db, r, o, false)
			}
		}
	}
	r := onSpark(t, sparkDataset(t, local))
	for _, o := range []FalsificationOptions{
		{Experiment: "checkout", Hypothesis: hypothesis.Hypothesis{Treatment: "canary", BaselineUntil: "action_start"}},
		{Experiment: "checkout", By: []string{"outcome"}, Hypothesis: hypothesis.Hypothesis{Treatment: "canary", BaselineUntil: "action_start"}},
	} {
		compareResults(t, fmt.Sprintf("falsification %+v", o), func() (*Result, error) { return Falsification(local, o) },
			func() (*Result, error) { return FalsificationOn(r, o) })
		so := StopDamageOptions{Experiment: o.Experiment, By: o.By, Hypothesis: o.Hypothesis}
		compareResults(t, fmt.Sprintf("stop-damage %+v", so), func() (*Result, error) { return StopDamage(local, so) },
			func() (*Result, error) { return StopDamageOn(r, so) })
	}
}

func stopDamageCases(exp string) []StopDamageOptions {
	minOK, _ := hypothesis.ParseBound("min", "95%", "ok_share")
	var out []StopDamageOptions
	for _, w := range []hypothesis.Window{{}, {N: 7}, {Ms: 10}} {
		out = append(out, StopDamageOptions{Experiment: exp, Window: w})
	}
	if exp != "lat" && exp != "checkout" && exp != "edge" {
		return out // as falsificationCases: the hypotheses on three experiments (CI time)
	}
	return append(out,
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{N: 13}, Ks: []int64{1, 2, 5}, Margin: 0.05, MarginSet: true},
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{Ms: 20}, Bound: &minOK},
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{N: 9}, Ks: []int64{0}},
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{N: 10}, Hypothesis: hypothesis.Hypothesis{Metric: "error_rate"}},
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{N: 20}, Hypothesis: hypothesis.Hypothesis{Metric: "p95"}},
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{N: 10}, Hypothesis: hypothesis.Hypothesis{BaselineUntil: "1s"}},
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{Ms: 100}, Hypothesis: hypothesis.Hypothesis{BaselineUntil: "2s", Metric: "mean"}},
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{Ms: 70}, Hypothesis: hypothesis.Hypothesis{Metric: "mean"}},
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{N: 10}, Hypothesis: hypothesis.Hypothesis{Control: "checkout/baseline"}},
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{Ms: 100}, Hypothesis: hypothesis.Hypothesis{Control: "experiment", Treatment: "control"}})
}

// compareResults fails unless the two give the same JSON, or the same error.
func compareResults(t *testing.T, what string, local, spark func() (*Result, error)) {
	t.Helper()
	want, errL := local()
	got, errS := spark()
	if errL != nil || errS != nil {
		if errL == nil || errS == nil || errL.Error() != errS.Error() {
			t.Errorf("%s: local error %v, Spark error %v", what, errL, errS)
		}
		return
	}
	if a, b := asJSON(t, want), asJSON(t, got); a != b || fmt.Sprint(want.Notes) != fmt.Sprint(got.Notes) {
		t.Errorf("%s: local\n%s%v\nSpark\n%s%v", what, a, want.Notes, b, got.Notes)
	}
}

func falsificationCases(exp string) []FalsificationOptions {
	minOK, _ := hypothesis.ParseBound("min", "95%", "ok_share")
	tol, _ := hypothesis.ParseBound("tolerance", "10%", "ok_share")
	var out []FalsificationOptions
	ws := []hypothesis.Window{{}, {N: 1}, {N: 7}, {N: 65536}, {Ms: 10}, {Ms: 1000}}
	if exp != "edge" {
		ws = []hypothesis.Window{{}, {N: 7}, {Ms: 1000}} // the windows' edges are the edge log's (CI time)
	}
	for _, w := range ws {
		out = append(out, FalsificationOptions{Experiment: exp, Window: w})
	}
	if exp != "lat" && exp != "checkout" && exp != "edge" {
		return out // the hypotheses on three experiments: each case is a few Spark jobs
	}
	windows := []hypothesis.Window{{N: 10}, {Ms: 250}}
	switch exp {
	case "lat": // the quantiles' edges: q·n whole in windows of 10 and 20
		windows = append(windows, hypothesis.Window{N: 20})
	case "checkout": // the runs named in and across experiments
		windows = windows[:1]
	case "edge": // the edges are the windows' (above) and the margins' and bounds' (below)
		windows = nil
	}
	for _, h := range []hypothesis.Hypothesis{{Metric: "error_rate"}, {Metric: "throughput"}, {Control: "nope"},
		{Control: "checkout/baseline"}, {Control: "experiment", Treatment: "control"}, {Treatment: "only"}, {Metric: "bogus"},
		{Metric: "p50"}, {Metric: "p90"}, {Metric: "p95"}, {Metric: "p99.9"}, {Metric: "max"}, {Metric: "mean"},
		{Metric: "p99", Control: "checkout/baseline"},
		{BaselineUntil: "1s"}, {BaselineUntil: "2s", Metric: "p50"}, {BaselineUntil: "150ms", Treatment: "control"}, {BaselineUntil: "-1s"}} {
		ws := windows
		if exp == "lat" { // CI time: the quantiles over the count windows, the rest over time
			ws = windows[1:2]
			if strings.HasPrefix(h.Metric, "p") {
				ws = []hypothesis.Window{{N: 10}, {N: 20}}
			}
		}
		for _, w := range ws {
			out = append(out, FalsificationOptions{Experiment: exp, Window: w, Hypothesis: h})
		}
	}
	return append(out,
		FalsificationOptions{Experiment: exp, Window: hypothesis.Window{N: 13}, Margins: []float64{0, 0.05, 0.5}},
		FalsificationOptions{Experiment: exp, Window: hypothesis.Window{Ms: 20}, Bounds: []hypothesis.Bound{minOK}},
		FalsificationOptions{Experiment: exp, Window: hypothesis.Window{N: 9}, Bounds: []hypothesis.Bound{tol}})
}

func compareFalsification(t *testing.T, local store.Querier, r *Remote, o FalsificationOptions) {
	t.Helper()
	want, errL := Falsification(local, o)
	got, errS := FalsificationOn(r, o)
	switch {
	case errL != nil || errS != nil:
		if errL == nil || errS == nil || errL.Error() != errS.Error() {
			t.Errorf("%s %v: local error %v, Spark error %v", o.Experiment, o.Window, errL, errS)
		}
		return
	}
	if a, b := asJSON(t, want), asJSON(t, got); a != b || fmt.Sprint(want.Notes) != fmt.Sprint(got.Notes) {
		t.Errorf("%s %v: local\n%s%v\nSpark\n%s%v", o.Experiment, o.Window, a, want.Notes, b, got.Notes)
	}
	if r.swept != "judged" {
		t.Errorf("%s %v: the sweep was %q, not judged on the cluster", o.Experiment, o.Window, r.swept)
	}
	if o.Window.Ms == 0 && o.Window.N == 0 {
		return // the stored window
	}
	sameSweepSteps(t, local, r, o)
}

// sameSweepSteps compares sweepOn's two steps with their local twins over
// _hyp_windows and _judged_windows: the control windows per den (count,
// sums of num and |num|), and per side and threshold the windows with a
// value, those falsified (_breaks) and the first falsified.
func sameSweepSteps(t *testing.T, local store.Querier, r *Remote, o FalsificationOptions) {
	t.Helper()
	_, s := localSidesOf(t, local, o.Experiment, o.Hypothesis)
	n, ms := o.Window.SQLArgs()
	sameStep(t, "_remote_sweep_base", local, fmt.Sprintf(`SELECT '' AS gkey, value_den, count(*), sum(value_num)::HUGEINT, sum(abs(value_num))::HUGEINT
		FROM _hyp_windows(%s, size_n := %s, size_ms := %s%s) WHERE role = 'control' AND value_den IS NOT NULL GROUP BY value_den`,
		sqllit.String(o.Experiment), sqlArg(n), sqlArg(ms), s.Args()), r.Querier(), `SELECT * FROM _remote_sweep_base`)
	ths := o.Bounds
	if len(ths) == 0 {
		var err error
		if ths, err = defaultSweep(s.Metric, o.Margins); err != nil {
			t.Fatal(err)
		}
	}
	lits := make([]string, len(ths))
	for i, th := range ths {
		lits[i] = must(th.SQL())
	}
	side := func(x hypothesis.Side) string {
		if x.Run != "" {
			return fmt.Sprintf("%s, %s, NULL", sqllit.String(x.Experiment), sqllit.String(x.Run))
		}
		return fmt.Sprintf("%s, NULL, %s", sqllit.String(x.Experiment), sqllit.String(x.Role))
	}
	split := "NULL"
	if s.Treatment.FromMs != nil {
		split = duckDouble(*s.Treatment.FromMs)
	}
	breaks := fmt.Sprintf("_breaks(c.value_num, c.value_den, c.sl, c.w, c.l, m.th.f, m.th.a, _metric_lower_bad(%s))", sqllit.String(s.Metric))
	sameStep(t, "_remote_sweep_judged", local, fmt.Sprintf(`SELECT c.role, '' AS gkey, m.i::BIGINT, count(*) FILTER (WHERE c.value_den IS NOT NULL),
		       count(*) FILTER (WHERE %[1]s), min(c.window_no) FILTER (WHERE %[1]s), 0::BIGINT
		FROM _judged_windows(%[2]s, %[3]s, %[4]s, %[5]s, %[6]s, %[7]s, %[8]s) c,
		     (SELECT unnest([%[9]s]) AS th, generate_subscripts([%[9]s], 1) AS i) m
		WHERE c.w > 0 OR m.th.f = 0 GROUP BY c.role, m.i`, breaks, sqllit.String(o.Experiment), sqlArg(n), sqlArg(ms),
		sqllit.String(s.Metric), side(s.Control), side(s.Treatment), split, strings.Join(lits, ", ")),
		r.Querier(), `SELECT * FROM _remote_sweep_judged`)
}

// localSides are h's sides of exp as the local path resolves them, as
// macro arguments.
func localSides(t *testing.T, db store.Querier, exp string, h hypothesis.Hypothesis) string {
	t.Helper()
	_, s := localSidesOf(t, db, exp, h)
	return s.Args()
}
