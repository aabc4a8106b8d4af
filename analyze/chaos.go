package analyze

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// BlastRadiusOptions steer BlastRadius. Zero values take the experiment's
// stored parameters: "planned" (a SQL predicate) and "start".
type BlastRadiusOptions struct {
	Experiment string
	Planned    string // SQL boolean over the request columns, e.g. tag_hash(20260731, req) < 0.05
	Start      int64  // position in the experiment run where the experiment starts
	StartSet   bool
}

var blastUnits = map[string]string{
	"planned": "requests", "measured": "requests", "window_requests": "requests", "multiplier": "x",
	"damaged": "requests", "control_damaged": "requests", "control_requests": "requests",
}

// BlastRadius compares the planned blast radius with the measured one.
func BlastRadius(db store.Querier, o BlastRadiusOptions) (*Result, error) {
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, err
	}
	start := o.Start
	if !o.StartSet {
		if s, ok := e.Number("start"); ok {
			start = int64(s)
		}
	}
	pred, stored := o.Planned, false
	if pred == "" {
		pred, _ = e.Text("planned")
		stored = true
	}
	var planned any // NULL when there is no plan: multiplier stays NULL
	if pred != "" {
		n, err := plannedCount(db, pred, stored, e, start)
		if err != nil {
			return nil, err
		}
		planned = n
	}
	return Query(db, "blast-radius", blastUnits, `SELECT * FROM blast_radius(?, ?, ?)`, e.Name, start, planned)
}

// FalsificationOptions steer Falsification.
type FalsificationOptions struct {
	Experiment string
	Window     hypothesis.Window // default: the experiment's stored window
	Margins    []float64         // default 0, 0.05, 0.10, 0.20 (ok share, error rate)
	Hypothesis hypothesis.Hypothesis
	// Thresholds, when given, replace Margins: one kind (tolerance, max,
	// min or margin), swept.
	Bounds []hypothesis.Bound
}

// DefaultMargins are the margins the seed sweeps.
var DefaultMargins = []float64{0, 0.05, 0.10, 0.20}

// DefaultTolerances are swept for a metric that takes no margin (latency,
// throughput).
var DefaultTolerances = []string{"0%", "10%", "20%", "50%"}

var falsUnits = map[string]string{
	"margin": "share", "baseline": "share",
}

// Falsification sweeps the steady-state hypothesis over margins, or any
// hypothesis over its thresholds.
func Falsification(db store.Querier, o FalsificationOptions) (*Result, error) {
	e, w, err := experimentWindow(db, o.Hypothesis.ExperimentIn(db, o.Experiment), o.Window)
	if err != nil {
		return nil, err
	}
	metric := o.Hypothesis.MetricOrDefault()
	ths := o.Bounds
	if len(ths) == 0 {
		if ths, err = defaultSweep(metric, o.Margins); err != nil {
			return nil, err
		}
	}
	s, err := hypothesis.ResolveSides(db, e, o.Hypothesis, !anyRelative(ths))
	if err != nil {
		return nil, err
	}
	if err := checkWindowMetric(metric, w); err != nil {
		return nil, err
	}
	n, ms := w.SQLArgs()
	var res *Result
	if ths[0].Kind == "margin" {
		margins := make([]string, len(ths))
		for i, t := range ths {
			margins[i] = hypothesis.TrimRat(new(big.Rat).Abs(t.A)) + "::DECIMAL(18,6)"
		}
		q := fmt.Sprintf(`SELECT * FROM falsification(?, size_n := ?, size_ms := ?, margins := [%s]%s)`,
			strings.Join(margins, ", "), s.Args())
		res, err = Query(db, "falsification", sweepUnits(metric, "margin"), q, e.Name, n, ms)
	} else {
		res, err = sweep(db, e, s, w, ths)
	}
	if err != nil {
		return res, err
	}
	if err := addWindowNote(db, e, w, res); err != nil || o.Hypothesis.IsDefault() {
		return res, err
	}
	res.Notes = append(res.Notes, sidesNotes(s, w, ths)...)
	return res, nil
}

// defaultSweep is the sweep when no threshold is given: the margins for a
// share, else DefaultTolerances.
func defaultSweep(metric string, margins []float64) ([]hypothesis.Bound, error) {
	var texts []string
	kind := "margin"
	switch {
	case hypothesis.MetricUnit(metric) != "share":
		kind, texts = "tolerance", DefaultTolerances
	case len(margins) == 0:
		margins = DefaultMargins
		fallthrough
	default:
		for _, m := range margins {
			if err := hypothesis.CheckMargin(m); err != nil {
				return nil, err
			}
			texts = append(texts, hypothesis.DecimalLit(m))
		}
	}
	out := make([]hypothesis.Bound, len(texts))
	for i, t := range texts {
		th, err := hypothesis.ParseBound(kind, t, metric)
		if err != nil {
			return nil, err
		}
		out[i] = th
	}
	return out, nil
}

func anyRelative(ths []hypothesis.Bound) bool {
	return slices.ContainsFunc(ths, hypothesis.Bound.Relative)
}

// sweepUnits are a sweep's column units: the threshold column (named after
// its kind), baseline and threshold in the metric's unit.
func sweepUnits(metric, kind string) map[string]string {
	u := hypothesis.MetricUnit(metric)
	units := map[string]string{"baseline": u, "threshold": u}
	if kind == "margin" {
		units["margin"] = "share"
	}
	return units
}

// sweep runs hypothesis_sweep; the first column, named after the
// thresholds' kind, shows each as given.
func sweep(db store.Querier, e store.Experiment, s hypothesis.Sides, w hypothesis.Window, ths []hypothesis.Bound) (*Result, error) {
	structs := make([]string, len(ths))
	labels := make([]string, len(ths))
	for i, t := range ths {
		lit, err := t.SQL()
		if err != nil {
			return nil, err
		}
		structs[i] = lit
		labels[i] = fmt.Sprintf("(%d, %s)", i+1, sqlString(t.Text))
	}
	kind := ths[0].Kind
	n, ms := w.SQLArgs()
	q := fmt.Sprintf(`SELECT l.label AS %s, s.* EXCLUDE (i)
		FROM hypothesis_sweep(?, [%s], size_n := ?, size_ms := ?%s) s JOIN (VALUES %s) l(i, label) USING (i)
		ORDER BY i`, kind, strings.Join(structs, ", "), s.Args(), strings.Join(labels, ", "))
	return Query(db, "falsification", sweepUnits(s.Metric, kind), q, e.Name, n, ms)
}

// checkWindowMetric refuses throughput over count windows: requests per
// second need a window length.
func checkWindowMetric(metric string, w hypothesis.Window) error {
	if metric == "throughput" && w.Ms == 0 {
		return fmt.Errorf("metric throughput: requests per second need duration windows; give --window 10s (say)")
	}
	return nil
}

// sidesNotes state the hypothesis as judged: the sides, the windows and each
// threshold.
func sidesNotes(s hypothesis.Sides, w hypothesis.Window, ths []hypothesis.Bound) []string {
	var notes []string
	if s.Split != "" {
		notes = append(notes, fmt.Sprintf("baseline: %s, before %s; treatment: the same run from then on (windows counted within each part)",
			runText(s.Control), s.Split))
	} else {
		ctl := runText(s.Control)
		if !s.HasControl {
			ctl = "none (absolute thresholds only)"
		}
		notes = append(notes, fmt.Sprintf("baseline: %s; treatment: %s", ctl, runText(s.Treatment)))
	}
	size := w.String() + " window"
	if w.N > 0 {
		size = fmt.Sprintf("window of %d requests", w.N)
	}
	base := "the mean of the baseline windows' values"
	if !anyRelative(ths) {
		base = "not needed (absolute thresholds)"
	}
	notes = append(notes, fmt.Sprintf("metric: %s (%s) per %s; baseline: %s", s.Metric, hypothesis.MetricUnit(s.Metric), size, base))
	for _, t := range ths {
		notes = append(notes, t.Text+": "+t.Describe(s.Metric))
	}
	return notes
}

// runText names a side without its time bounds.
func runText(s hypothesis.Side) string {
	s.FromMs, s.UntilMs = nil, nil
	return s.String()
}

// StopDamageOptions steer StopDamage.
type StopDamageOptions struct {
	Experiment string
	Window     hypothesis.Window
	Margin     float64 // default 0.10
	MarginSet  bool
	Ks         []int64 // default 1, 2, 3, 4
	Hypothesis hypothesis.Hypothesis
	Bound      *hypothesis.Bound // replaces Margin when set
}

var stopUnits = map[string]string{
	"damage_until_stop": "requests",
	"extra_over_k1":     "requests", "total_damage": "requests",
}

// StopDamage sweeps the stop criterion "k consecutive falsified windows".
func StopDamage(db store.Querier, o StopDamageOptions) (*Result, error) {
	e, w, err := experimentWindow(db, o.Hypothesis.ExperimentIn(db, o.Experiment), o.Window)
	if err != nil {
		return nil, err
	}
	metric := o.Hypothesis.MetricOrDefault()
	th, err := o.threshold(e, metric)
	if err != nil {
		return nil, err
	}
	s, err := hypothesis.ResolveSides(db, e, o.Hypothesis, !th.Relative())
	if err != nil {
		return nil, err
	}
	if err := checkWindowMetric(metric, w); err != nil {
		return nil, err
	}
	ks := o.Ks
	if len(ks) == 0 {
		ks = []int64{1, 2, 3, 4}
	}
	parts := make([]string, len(ks))
	for i, k := range ks {
		if k < 1 {
			return nil, fmt.Errorf("k %d: want 1 or more consecutive windows", k)
		}
		parts[i] = strconv.FormatInt(k, 10)
	}
	f, a, err := th.Millionths()
	if err != nil {
		return nil, err
	}
	n, ms := w.SQLArgs()
	q := fmt.Sprintf(`SELECT * FROM stop_damage(?, size_n := ?, size_ms := ?, ks := [%s], f := %s, a := %s%s)`,
		strings.Join(parts, ", "), f, a, s.Args())
	res, err := Query(db, "stop-damage", stopUnits, q, e.Name, n, ms)
	if err != nil {
		return nil, err
	}
	if err := addWindowNote(db, e, w, res); err != nil {
		return nil, err
	}
	if !o.Hypothesis.IsDefault() {
		res.Notes = append(res.Notes, sidesNotes(s, w, []hypothesis.Bound{th})...)
	}
	tagged, err := hypothesis.HasTags(db, s.Treatment)
	if err != nil {
		return nil, err
	}
	if !tagged || !o.Hypothesis.IsDefault() {
		res.Notes = append(res.Notes, hypothesis.DamageNote(tagged))
	}
	return res, nil
}

// threshold is the option's threshold, else the margin (the flag's, the
// stored one, else 0.10) for a share, else DefaultTolerance.
func (o StopDamageOptions) threshold(e store.Experiment, metric string) (hypothesis.Bound, error) {
	if o.Bound != nil || hypothesis.MetricUnit(metric) != "share" {
		return hypothesis.Threshold(metric, o.Bound, "")
	}
	margin := hypothesis.DefaultMargin
	if o.MarginSet {
		margin = o.Margin
	} else if m, ok := e.Number("margin"); ok {
		margin = m
	}
	if err := hypothesis.CheckMargin(margin); err != nil {
		return hypothesis.Bound{}, err
	}
	return hypothesis.Threshold(metric, nil, hypothesis.DecimalLit(margin))
}

func experimentWindow(db store.Querier, name string, flag hypothesis.Window) (store.Experiment, hypothesis.Window, error) {
	e, err := store.FindExperiment(db, name)
	if err != nil {
		return e, hypothesis.Window{}, err
	}
	w, err := WindowFor(e, flag)
	if err != nil {
		return e, w, err
	}
	if w.Ms > 0 {
		var timed int64
		if err := db.QueryRow(`SELECT count(t_ms) FROM requests WHERE experiment = ?`, e.Name).Scan(&timed); err != nil {
			return e, w, err
		}
		if timed == 0 {
			return e, w, fmt.Errorf("experiment %q has no t_ms: duration windows need send times; use a count window such as --window 40", e.Name)
		}
	}
	return e, w, nil
}

func decimalList(fs []float64) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = hypothesis.DecimalLit(f) + "::DECIMAL(18,6)"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
