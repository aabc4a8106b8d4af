package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// The verdict leads the report: what a chaos or load engineer reads in five
// seconds. Each line is the answer of the analysis whose section follows
// (falsification at the report's margin, stop-damage at its k, blast
// radius), so the verdict and the sections never disagree.

var verdictColumns = []Column{{Name: "question"}, {Name: "verdict"}, {Name: "detail"}}

func verdictSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	var rows [][]Value
	var missing []string
	if ok, err := windowed(q, e, o); err != nil {
		return nil, err
	} else if ok {
		hyp, err := hypothesisVerdict(q, e, o)
		if err != nil {
			return nil, err
		}
		stop, err := stopVerdict(q, e, o)
		if err != nil {
			return nil, err
		}
		rows = append(rows, hyp, stop)
	} else {
		found, err := incidentVerdicts(q, e, o)
		if err != nil {
			return nil, err
		}
		rows = append(rows, found...)
		missing = append(missing, windowedWhy(e, o))
	}
	blast, why, err := blastVerdict(q, e, o)
	if err != nil {
		return nil, err
	}
	if blast != nil {
		rows = append(rows, blast)
	} else if why != "" {
		missing = append(missing, why)
	}
	for _, v := range []func(store.Querier, store.Experiment, Options) ([]Value, error){thresholdsVerdict, burnVerdict, burstVerdict} {
		row, err := v(q, e, o)
		if err != nil {
			return nil, err
		}
		if row != nil {
			rows = append(rows, row)
		}
	}
	sec := &Section{Title: "Verdict", Tables: []Table{{Columns: verdictColumns, Rows: rows}}}
	if len(rows) == 0 {
		sec.Tables = nil
	}
	sec.Note = strings.Join(append(headline(rows), missing...), " ")
	return sec, nil
}

// headline is the verdict in one sentence, each question's answer.
func headline(rows [][]Value) []string {
	if len(rows) == 0 {
		return []string{"Nothing to judge."}
	}
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = fmt.Sprintf("%s: %s", r[0], r[1])
	}
	s := strings.Join(parts, "; ") + "."
	if strings.HasPrefix(s, "k6") { // a name keeps its case
		return []string{s}
	}
	return []string{strings.ToUpper(s[:1]) + s[1:]}
}

// windowedWhy says why the hypothesis, stop and timeline are left out.
func windowedWhy(e store.Experiment, o Options) string {
	if _, err := analyze.WindowFor(e, o.Window); err != nil {
		return o.say("The falsification, stop-damage and timeline sections are left out: they need a window size; give {window} 40 (requests) or {window} 10s, or store one with {set} window=40 at ingest.")
	}
	return o.say("The falsification, stop-damage and timeline sections are left out: they need a control and an experiment run; give the runs their roles with {role} RUN=control {role} RUN=experiment at ingest.")
}

// hypothesisVerdict judges the steady-state hypothesis at the report's
// margin: held, or falsified from which window and when.
func hypothesisVerdict(q store.Querier, e store.Experiment, o Options) ([]Value, error) {
	w, err := analyze.WindowFor(e, o.Window)
	if err != nil {
		return nil, err
	}
	if o.custom() {
		return customVerdict(q, e, o, w)
	}
	r, err := o.falsification(q, analyze.FalsificationOptions{Experiment: e.Name, Window: o.Window, Margins: []float64{o.Margin}})
	if err != nil || len(r.Rows) == 0 {
		return nil, err
	}
	baseline := toFloat(r.Rows[0][r.Col("baseline")])
	threshold := fmt.Sprintf("ok share ≥ %s (control baseline %s − margin %s) per %s window",
		analyze.Human(baseline-o.Margin, "share"), analyze.Human(baseline, "share"), analyze.Human(o.Margin, "share"), windowName(w))
	return judgedVerdict(q, e, o, w, r, threshold)
}

// custom reports a hypothesis named by flags (--metric, the sides, a
// bound): the verdict, the stop and the timeline then all judge it.
func (o Options) custom() bool { return !o.Hypothesis.IsDefault() || o.Bound != nil }

// customVerdict judges the flags' hypothesis with its threshold, as the
// timeline draws it.
func customVerdict(q store.Querier, e store.Experiment, o Options, w hypothesis.Window) ([]Value, error) {
	th, err := o.threshold(e)
	if err != nil {
		return nil, err
	}
	r, err := o.falsification(q, analyze.FalsificationOptions{Experiment: e.Name, Window: o.Window,
		Hypothesis: o.Hypothesis, Bounds: []hypothesis.Bound{th}})
	if err != nil || len(r.Rows) == 0 {
		return nil, err
	}
	m := o.Hypothesis.MetricOrDefault()
	value, err := thresholdValue(r, o.Margin)
	if err != nil {
		return nil, err
	}
	threshold := fmt.Sprintf("%s (threshold %s) per %s window", th.Describe(m),
		humanIn(value, hypothesis.MetricUnit(m)), windowName(w))
	return judgedVerdict(q, e, o, w, r, threshold)
}

// thresholdValue is the first row's threshold: its column under a bound,
// the baseline less the margin under a margin (a share metric's default,
// whose sweep has a margin column and no threshold).
func thresholdValue(r *analyze.Result, margin float64) (float64, error) {
	if c := r.Col("threshold"); c >= 0 {
		return toFloat(r.Rows[0][c]), nil
	}
	if c := r.Col("baseline"); c >= 0 && r.Col("margin") >= 0 {
		return toFloat(r.Rows[0][c]) - margin, nil
	}
	return 0, fmt.Errorf("the falsification sweep has neither a threshold column nor a baseline and a margin")
}

// judgedVerdict reads a one-threshold falsification result.
func judgedVerdict(q store.Querier, e store.Experiment, o Options, w hypothesis.Window, r *analyze.Result, threshold string) ([]Value, error) {
	row := r.Rows[0]
	ctlF, ctlN := toInt(row[r.Col("control_falsified")]), toInt(row[r.Col("control_windows")])
	expF, expN := toInt(row[r.Col("experiment_falsified")]), toInt(row[r.Col("experiment_windows")])
	alarms := fmt.Sprintf("control: %d of %d falsified (no false alarm)", ctlF, ctlN)
	if ctlF > 0 {
		alarms = fmt.Sprintf("control: %d of %d falsified (%s)", ctlF, ctlN, hypothesis.Plural(ctlF, "false alarm"))
	}
	if expF == 0 {
		return []Value{"steady-state hypothesis", "held",
			fmt.Sprintf("%s; experiment: 0 of %s falsified; %s", threshold, hypothesis.Plural(expN, "window"), alarms)}, nil
	}
	first := toInt(row[r.Col("first_falsified_window")])
	at, err := windowStart(q, e, o, w, first)
	if err != nil {
		return nil, err
	}
	return []Value{"steady-state hypothesis", "falsified",
		fmt.Sprintf("%s; experiment: %d of %s falsified, first window %d%s; %s", threshold, expF, hypothesis.Plural(expN, "window"), first, at, alarms)}, nil
}

// windowStart is " (from t = … ms)" for a window of the experiment run,
// or "" when its rows carry no t_ms.
func windowStart(q store.Querier, e store.Experiment, o Options, w hypothesis.Window, window int64) (string, error) {
	if o.remote != nil {
		at, err := o.remoteWindowStart(e, window)
		if err != nil || !at.Valid {
			return "", err
		}
		return fmt.Sprintf(" (from t = %s ms)", trimFloatText(at.Float64)), nil
	}
	n, ms := w.SQLArgs()
	r, err := analyze.Query(q, "window", nil, `SELECT first_t_ms FROM windows(?, 'experiment', size_n := ?, size_ms := ?) WHERE window_no = ?`,
		e.Name, n, ms, window)
	if err != nil || len(r.Rows) == 0 || r.Rows[0][0] == nil {
		return "", err
	}
	return fmt.Sprintf(" (from t = %s ms)", trimFloatText(toFloat(r.Rows[0][0]))), nil
}

// stopVerdict says where a stop after k falsified windows fires and what
// it would have prevented.
func stopVerdict(q store.Querier, e store.Experiment, o Options) ([]Value, error) {
	so := analyze.StopDamageOptions{Experiment: e.Name, Window: o.Window, Margin: o.Margin, MarginSet: true, Ks: []int64{o.StopAfter}}
	if o.custom() {
		th, err := o.threshold(e)
		if err != nil {
			return nil, err
		}
		so.Hypothesis, so.Bound = o.Hypothesis, &th
	}
	r, err := o.stopDamage(q, so)
	if err != nil || len(r.Rows) == 0 {
		return nil, err
	}
	row := r.Rows[0]
	question := fmt.Sprintf("stop after %s", stopWindows(o.StopAfter))
	until, total := toInt(row[r.Col("damage_until_stop")]), toInt(row[r.Col("total_damage")])
	tagged := taggedLog(q, e, o)
	if row[r.Col("stop_window")] == nil {
		return []Value{question, "never fires", damaged(total, tagged) + ", none prevented"}, nil
	}
	saved := total - until
	share := "-"
	if total > 0 {
		share = analyze.Human(float64(saved)/float64(total), "share")
	}
	return []Value{question, fmt.Sprintf("fires at window %d", toInt(row[r.Col("stop_window")])),
		fmt.Sprintf("%d of %s before the stop: %d prevented (%s)", until, damaged(total, tagged), saved, share)}, nil
}

// taggedLog reports whether the experiment run tags requests; stop-damage
// counts tagged requests not ok, or, in a log without tags, requests not ok
// (as the stop-damage note says).
func taggedLog(q store.Querier, e store.Experiment, o Options) bool {
	tagged, err := o.hasTags(q, e)
	return err != nil || tagged
}

// damageNoun is what stop-damage counts, as its note says it.
func damageNoun(tagged bool) string {
	if tagged {
		return "tagged requests not ok (damaged)"
	}
	return "requests not ok (the log tags no requests)"
}

// damaged names n of what stop-damage counts, singular for 1.
func damaged(n int64, tagged bool) string {
	if tagged {
		return hypothesis.Plural(n, "damaged request")
	}
	if n == 1 {
		return "1 request not ok"
	}
	return fmt.Sprintf("%d requests not ok", n)
}

// blastVerdict is the blast radius multiplier, when the experiment has a
// plan; why says what is missing otherwise.
func blastVerdict(q store.Querier, e store.Experiment, o Options) (row []Value, why string, err error) {
	if ok, err := hasRoles(q, o, e.Name, "experiment"); !ok || err != nil {
		return nil, "", err
	}
	if ok, err := blastApplies(q, e, o); err != nil || !ok {
		return nil, o.say("The blast-radius section is left out: the log tags no requests and has no plan; give {planned} 'SQL boolean' (or store it with {set} planned=…) to compare."), err
	}
	r, err := o.blastRadius(q, analyze.BlastRadiusOptions{Experiment: e.Name, Planned: o.Planned})
	if err != nil || len(r.Rows) == 0 {
		return nil, "", err
	}
	planned, measured := toFloat(r.Rows[0][r.Col("planned")]), toFloat(r.Rows[0][r.Col("measured")])
	if math.IsNaN(planned) || planned == 0 {
		return nil, o.say("No blast-radius plan: give {planned} 'SQL boolean' (or store it with {set} planned=…) for the multiplier."), nil
	}
	return []Value{"blast radius", analyze.Human(toFloat(r.Rows[0][r.Col("multiplier")]), "x"),
		fmt.Sprintf("%s requests reached against %s planned", trimFloatText(measured), trimFloatText(planned))}, "", nil
}

func windowName(w hypothesis.Window) string {
	if w.N > 0 {
		return fmt.Sprintf("%d-request", w.N)
	}
	return w.String()
}

func stopWindows(k int64) string {
	if k == 1 {
		return "1 falsified window"
	}
	return fmt.Sprintf("%d consecutive falsified windows", k) // k ≥ 2 here
}

func trimFloatText(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%.3f", f), ".000") }

func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	case nil:
		return math.NaN()
	}
	var f float64
	if _, err := fmt.Sscan(fmt.Sprint(v), &f); err != nil {
		return math.NaN()
	}
	return f
}

func toInt(v any) int64 {
	f := toFloat(v)
	if math.IsNaN(f) {
		return 0
	}
	return int64(f)
}
