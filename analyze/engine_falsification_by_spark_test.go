package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// byEdgeLog is a log of two experiments with groups for --by: "gedge", n
// rows each of a control run and two experiment-role runs (interleaved,
// so each run's seqs cross a block of 65536 when 3n does), with statuses
// in and outside 100-599 and none (status_class none, status NULL), NULL
// outcomes and latencies, count > 1, negative t_ms and rows on window
// edges, clients NULL, of one side only ("only-ctl", "only-exp"), of a
// warm-up run only (no side reads it) and without t_ms ("untimed": no
// duration window); and "glat", one request a row, whose latencies are
// NULL in one client only, so its other clients' windows of 20 have q·n
// whole (p95, p50, max).
func byEdgeLog(n int) string {
	var b strings.Builder
	b.WriteString(`{"record":"run","experiment":"gedge","run":"o'b\\rien","role":"experiment"}` + "\n")
	b.WriteString(`{"record":"run","experiment":"gedge","run":"warm","role":"warmup"}` + "\n")
	for i := range n {
		for _, run := range []string{"control", "experiment", `o'b\\rien`} {
			outcome := `"ok"`
			switch {
			case i%7 == 3:
				outcome = `"error"`
			case i%11 == 5:
				outcome = `null`
			}
			lat := fmt.Sprint(10 + i%13)
			if i%17 == 4 {
				lat = "null"
			}
			status := []string{"200", "200", "503", "404", "null", "99", "200", "700"}[i%8]
			client := fmt.Sprintf(`"c%d"`, i%3)
			switch {
			case i%5 == 0:
				client = "null"
			case run == "control" && i%7 == 1:
				client = `"only-ctl"`
			case run != "control" && i%7 == 2:
				client = `"only-exp"`
			}
			t := fmt.Sprint(i*10 - 50)
			if i%97 == 13 {
				client, t = `"untimed"`, "null"
			}
			fmt.Fprintf(&b, `{"experiment":"gedge","run":"%s","req":%d,"t_ms":%s,"latency_ms":%s,"outcome":%s,"status":%s,"client_id":%s,"tagged":%v,"count":%d}`+"\n",
				run, i, t, lat, outcome, status, client, i%3 == 0, 1+i%4)
		}
	}
	for i := range 40 {
		fmt.Fprintf(&b, `{"experiment":"gedge","run":"warm","req":%d,"t_ms":%d,"latency_ms":5,"outcome":"ok","client_id":"only-warm"}`+"\n", i, i)
	}
	for i := range 600 {
		for _, run := range []string{"control", "experiment"} {
			client := []string{"a", "b", "c"}[i%3]
			lat := fmt.Sprintf("%d.%04d", i%37, []int{5, 15, 25, 0, 4999, 5001}[i%6])
			if client == "c" && i%9 == 2 {
				lat = "null"
			}
			if run == "experiment" && i > 300 {
				lat = fmt.Sprintf("%d.5", 20+i%41)
			}
			fmt.Fprintf(&b, `{"experiment":"glat","run":"%s","req":%d,"t_ms":%d,"latency_ms":%s,"outcome":"%s","tagged":%v,"client_id":"%s","status":%d}`+"\n",
				run, i, i*7-300, lat, []string{"ok", "ok", "ok", "error"}[i%4], i%5 == 0, client, []int{200, 500, 200, 404}[i%4])
		}
	}
	return b.String()
}

// Falsification and stop-damage --by on Spark equal the local ones over
// the fixtures and byEdgeLog: groups of columns and status_class (a NULL
// group, groups of one side only, of no side, without t_ms), count and
// duration windows (positions within each side and group, across seq
// blocks), margins and thresholds, every metric (quantiles with q·n whole
// and not, NULL latencies, their count > 1 refusal), splits, a control run
// of another experiment, the refusals word for word. The windows step's
// rows, read through the TEMP _side_windows_by, equal the local macro's
// for both sides (stop-damage's, pulled after it ran judged on the
// cluster, for a count, a duration and a quantile window); stop-damage's
// group steps equal _stop_groups_by and the
// local count of groups. The fixtures run three windows and a few
// hypotheses; the edge logs run the whole matrix.
func TestHypothesisByOnSpark(t *testing.T) {
	sparkURL(t)
	t.Parallel() // a step waits mostly on the cluster's scheduling: two tests overlap it
	local := ingestedDB(t, "../fixtures/chaos/gunluk.json", "../fixtures/k6/chaos.json", "../fixtures/hypotheses/checkout.ndjson")
	edge := logsDB(t, byEdgeLog(22000))
	for _, c := range []struct {
		db   *store.DB
		exps []string
	}{{local, []string{"gunluk", "chaos", "checkout"}}, {edge, []string{"gedge", "glat"}}} {
		r := onSpark(t, sparkDataset(t, c.db))
		for _, exp := range c.exps {
			for _, o := range falsificationByCases(exp) {
				if bothRan(t, fmt.Sprintf("falsification %+v", o), func() (*Result, error) { return Falsification(c.db, o) },
					func() (*Result, error) { return FalsificationOn(r, o) }) {
					sameSweepBaseBy(t, c.db, r, exp, o.By, o.Window, o.Hypothesis)
				}
			}
			for i, o := range stopDamageByCases(exp) {
				// pulled too, and its windows step checked, for a count,
				// a duration and a quantile window (CI time: the rest are
				// judged only)
				pulled := i == 1 || i == 2 || o.Hypothesis.Metric == "p95"
				if compareStopDamage(t, c.db, r, o, pulled) {
					if pulled {
						sameSideWindowsBy(t, c.db, r, exp, o.By, o.Window, o.Hypothesis)
					}
					sameStopGroups(t, c.db, r, exp, o.By, o.Hypothesis)
				}
			}
		}
	}
}

// --by an attrs key (alone and beside a column) runs on Spark through the
// shared group code (engineGroup: get_json_object's text, checked against
// ->> at run time): the same JSON and the same side windows as locally,
// for count and duration windows.
func TestHypothesisByAttrsOnSpark(t *testing.T) {
	sparkURL(t)
	db := ingestedDB(t, "../fixtures/hypotheses/checkout.ndjson")
	r := onSpark(t, sparkDataset(t, db))
	for _, by := range [][]string{{"name"}, {"status_class", "name"}} {
		for _, w := range []hypothesis.Window{{N: 10}, {Ms: 10000}} {
			o := FalsificationOptions{Experiment: "checkout", By: by, Window: w}
			if !bothRan(t, fmt.Sprintf("falsification %+v", o), func() (*Result, error) { return Falsification(db, o) },
				func() (*Result, error) { return FalsificationOn(r, o) }) {
				t.Errorf("falsification %+v did not run on both engines", o)
				continue
			}
			sameSweepBaseBy(t, db, r, "checkout", o.By, o.Window, o.Hypothesis)
			so := StopDamageOptions{Experiment: "checkout", By: by, Window: w}
			if !compareStopDamage(t, db, r, so, false) {
				t.Errorf("stop-damage %+v did not run on both engines", so)
				continue
			}
			sameStopGroups(t, db, r, "checkout", so.By, so.Hypothesis)
		}
	}
}

// bothRan is compareResults, and whether both engines gave a result (so
// the engine's steps were run for this case).
func bothRan(t *testing.T, what string, local, spark func() (*Result, error)) bool {
	t.Helper()
	var ran bool
	compareResults(t, what, local, func() (*Result, error) {
		res, err := spark()
		ran = err == nil
		return res, err
	})
	return ran
}

func falsificationByCases(exp string) []FalsificationOptions {
	minOK, _ := hypothesis.ParseBound("min", "95%", "ok_share")
	tol, _ := hypothesis.ParseBound("tolerance", "10%", "ok_share")
	var out []FalsificationOptions
	ws := []hypothesis.Window{{}, {N: 1}, {N: 7}, {Ms: 10}, {Ms: 1000}}
	if exp != "gedge" && exp != "glat" {
		ws = []hypothesis.Window{{}, {N: 7}, {Ms: 1000}} // a fixture: the edges are the edge logs' (CI time)
	}
	if exp == "gedge" {
		// not 1s: its baseline's denominators pass HUGEINT, and which
		// product overflows first (the error's text) is the rows' order
		ws = []hypothesis.Window{{N: 1}, {N: 7}, {Ms: 10}}
	}
	for _, by := range [][]string{{"status_class"}, {"outcome", "tagged"}} {
		for _, w := range ws {
			out = append(out, FalsificationOptions{Experiment: exp, Window: w, By: by})
		}
	}
	if exp == "gedge" {
		for _, by := range [][]string{{"client_id"}, {"status"}, {"role"}} {
			out = append(out, FalsificationOptions{Experiment: exp, Window: hypothesis.Window{N: 7}, By: by},
				FalsificationOptions{Experiment: exp, Window: hypothesis.Window{Ms: 10}, By: by})
		}
	}
	by := []string{"client_id"}
	switch exp {
	case "checkout":
		by = []string{"outcome"}
	case "glat":
		return append(out,
			FalsificationOptions{Experiment: exp, Window: hypothesis.Window{N: 20}, By: by, Hypothesis: hypothesis.Hypothesis{Metric: "p95"}},
			FalsificationOptions{Experiment: exp, Window: hypothesis.Window{N: 20}, By: by, Hypothesis: hypothesis.Hypothesis{Metric: "p50"}},
			FalsificationOptions{Experiment: exp, Window: hypothesis.Window{N: 13}, By: by, Hypothesis: hypothesis.Hypothesis{Metric: "p99.9"}},
			FalsificationOptions{Experiment: exp, Window: hypothesis.Window{N: 20}, By: by, Hypothesis: hypothesis.Hypothesis{Metric: "max"}},
			FalsificationOptions{Experiment: exp, Window: hypothesis.Window{Ms: 250}, By: []string{"status_class"}, Hypothesis: hypothesis.Hypothesis{Metric: "p90"}},
			FalsificationOptions{Experiment: exp, Window: hypothesis.Window{N: 20}, By: by, Hypothesis: hypothesis.Hypothesis{Metric: "mean", BaselineUntil: "1s"}})
	case "gedge":
	default:
		return out
	}
	hs := []hypothesis.Hypothesis{{Metric: "error_rate"}, {Metric: "throughput"}, {Metric: "mean"}, {Metric: "p95"},
		{Control: "checkout/baseline"}, {Control: "experiment", Treatment: "control"}, {Treatment: "o'b\\rien"},
		{BaselineUntil: "1s"}, {BaselineUntil: "150ms", Treatment: "control"}}
	if exp == "checkout" {
		// its own control run, a latency metric and a split: the rest is gedge's
		hs = []hypothesis.Hypothesis{{Metric: "p95"}, {Control: "checkout/baseline"}, {BaselineUntil: "1s"}}
	}
	for _, h := range hs {
		out = append(out, FalsificationOptions{Experiment: exp, Window: hypothesis.Window{N: 10}, By: by, Hypothesis: h},
			FalsificationOptions{Experiment: exp, Window: hypothesis.Window{Ms: 250}, By: by, Hypothesis: h})
	}
	return append(out,
		FalsificationOptions{Experiment: exp, Window: hypothesis.Window{N: 13}, By: by, Margins: []float64{0, 0.05, 0.5}},
		FalsificationOptions{Experiment: exp, Window: hypothesis.Window{Ms: 20}, By: by, Bounds: []hypothesis.Bound{minOK}},
		FalsificationOptions{Experiment: exp, Window: hypothesis.Window{N: 9}, By: by, Bounds: []hypothesis.Bound{tol}},
		FalsificationOptions{Experiment: exp, Window: hypothesis.Window{N: 9}, By: []string{"run"}})
}

func stopDamageByCases(exp string) []StopDamageOptions {
	minOK, _ := hypothesis.ParseBound("min", "95%", "ok_share")
	by := []string{"client_id"}
	if exp != "gedge" && exp != "glat" {
		by = []string{"status_class"}
	}
	out := []StopDamageOptions{
		{Experiment: exp, By: by},
		{Experiment: exp, Window: hypothesis.Window{N: 7}, By: by},
		{Experiment: exp, Window: hypothesis.Window{Ms: 10}, By: by},
		{Experiment: exp, Window: hypothesis.Window{N: 13}, By: []string{"outcome", "tagged"}, Ks: []int64{1, 2, 5}, Margin: 0.05, MarginSet: true},
	}
	if exp != "gedge" && exp != "glat" {
		return out[:3] // a fixture: the edges are the edge logs' (CI time)
	}
	return append(out,
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{Ms: 20}, By: by, Bound: &minOK},
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{N: 10}, By: []string{"status_class"}, Hypothesis: hypothesis.Hypothesis{Metric: "error_rate"}},
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{N: 20}, By: by, Hypothesis: hypothesis.Hypothesis{Metric: "p95"}},
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{N: 10}, By: by, Hypothesis: hypothesis.Hypothesis{BaselineUntil: "1s"}},
		StopDamageOptions{Experiment: exp, Window: hypothesis.Window{Ms: 100}, By: by, Hypothesis: hypothesis.Hypothesis{Metric: "mean", Control: "experiment", Treatment: "control"}})
}

// sameSideWindowsBy compares both sides' _side_windows_by on the engine
// (the TEMP macro over the windows step's rows, as the last call left
// them) with the local macro's, called as _judged_windows_by calls it.
func sameSideWindowsBy(t *testing.T, local store.Querier, r *Remote, exp string, by []string, w hypothesis.Window, h hypothesis.Hypothesis) {
	t.Helper()
	if w.N == 0 && w.Ms == 0 {
		return // the stored window
	}
	s, args := localSideArgs(t, local, exp, by, w, h)
	q := fmt.Sprintf(`SELECT 'control' AS role, * FROM _side_windows_by(%s) UNION ALL SELECT 'experiment', * FROM _side_windows_by(%s)`,
		args(s.Control, "control"), args(s.Treatment, "experiment"))
	sameStep(t, fmt.Sprintf("_side_windows_by %s %v %v", exp, by, w), local, q, r.Querier(), q)
}

// sameSweepBaseBy checks that falsification --by was judged on the
// cluster and compares its first step (the control windows per group and
// den: count, sums of num and |num|) with the local _side_windows_by's, the
// groups' keys aside (the step's are Spark's JSON text).
func sameSweepBaseBy(t *testing.T, local store.Querier, r *Remote, exp string, by []string, w hypothesis.Window, h hypothesis.Hypothesis) {
	t.Helper()
	if r.swept != "judged" {
		t.Errorf("falsification %s %v %v: the sweep was %q, not judged on the cluster", exp, by, w, r.swept)
	}
	if w.N == 0 && w.Ms == 0 {
		return // the stored window
	}
	s, args := localSideArgs(t, local, exp, by, w, h)
	sameStep(t, fmt.Sprintf("_remote_sweep_base %s %v %v", exp, by, w), local, fmt.Sprintf(`SELECT value_den, count(*), sum(value_num)::HUGEINT, sum(abs(value_num))::HUGEINT
		FROM _side_windows_by(%s) WHERE value_den IS NOT NULL GROUP BY gk, value_den`, args(s.Control, "control")),
		r.Querier(), `SELECT den, n, s, s_abs FROM _remote_sweep_base`)
}

// localSideArgs resolves exp's sides locally and gives args, a side's
// arguments of _side_windows_by as _judged_windows_by passes them (a run
// side's role is the default one, role).
func localSideArgs(t *testing.T, local store.Querier, exp string, by []string, w hypothesis.Window, h hypothesis.Hypothesis) (hypothesis.Sides, func(x hypothesis.Side, role string) string) {
	t.Helper()
	e, s := localSidesOf(t, local, exp, h)
	g, err := groupBy(local, e.Name, by)
	if err != nil {
		t.Fatal(err)
	}
	n, ms := w.SQLArgs()
	bound := func(b *float64) string {
		if b == nil {
			return "NULL"
		}
		return duckDouble(*b)
	}
	return s, func(x hypothesis.Side, role string) string {
		run := "NULL"
		if x.Run != "" {
			run = sqllit.String(x.Run)
		} else {
			role = x.Role
		}
		return fmt.Sprintf("%s, %s, %s, %s, %s, %s, %s, %s, %s", sqllit.String(x.Experiment), g.key, run, sqllit.String(role),
			sqlArg(n), sqlArg(ms), bound(x.FromMs), bound(x.UntilMs), sqllit.String(s.Metric))
	}
}

// sameStopGroups compares stop-damage's group steps: _stop_groups_by on
// both engines, and the count of groups and rows with the local one.
func sameStopGroups(t *testing.T, local store.Querier, r *Remote, exp string, by []string, h hypothesis.Hypothesis) {
	t.Helper()
	e, s := localSidesOf(t, local, exp, h)
	g, err := groupBy(local, e.Name, by)
	if err != nil {
		t.Fatal(err)
	}
	q := fmt.Sprintf(`SELECT * FROM _stop_groups_by(%s, %s, %s, %s)`, sqllit.String(e.Name), g.key,
		sqllit.String(s.Control.Experiment), sqllit.String(s.Treatment.Experiment))
	sameStep(t, "_stop_groups_by "+exp, local, q, r.Querier(), q)
	sameStep(t, "group count "+exp, local, fmt.Sprintf(`SELECT count(DISTINCT %s), count(*) FROM requests WHERE experiment = %s`, g.key, sqllit.String(e.Name)),
		r.Querier(), `SELECT groups, n_rows FROM _remote_stop_group_count`)
}

func localSidesOf(t *testing.T, db store.Querier, exp string, h hypothesis.Hypothesis) (store.Experiment, hypothesis.Sides) {
	t.Helper()
	e, err := store.FindExperiment(db, h.ExperimentIn(db, exp))
	if err != nil {
		t.Fatal(err)
	}
	s, err := hypothesis.ResolveSides(db, e, h, true)
	if err != nil {
		t.Fatal(err)
	}
	return e, s
}

func sqlArg(v any) string {
	if v == nil {
		return "NULL"
	}
	switch x := v.(type) {
	case float64:
		return duckDouble(x)
	default:
		return fmt.Sprint(x)
	}
}
