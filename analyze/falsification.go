package analyze

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// FalsificationOptions steer Falsification.
type FalsificationOptions struct {
	Experiment string
	Window     hypothesis.Window // default: the experiment's stored window
	Margins    []float64         // default 0, 0.05, 0.10, 0.20 (ok share, error rate)
	Hypothesis hypothesis.Hypothesis
	// Thresholds, when given, replace Margins: one kind (tolerance, max,
	// min or margin), swept.
	Bounds []hypothesis.Bound
	By     []string // fields whose values split each side into groups (docs/by.md)
}

// DefaultMargins are the margins the seed sweeps.
var DefaultMargins = []float64{0, 0.05, 0.10, 0.20}

// DefaultTolerances are swept for a metric that takes no margin (latency,
// throughput).
var DefaultTolerances = []string{"0%", "10%", "20%", "50%"}

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
	g, err := groupBy(db, e.Name, o.By)
	if err != nil {
		return nil, err
	}
	return falsificationSweep(db, e, w, ths, s, g, o.Hypothesis)
}

// falsificationSweep is the sweep over the sides' windows and its notes.
func falsificationSweep(db store.Querier, e store.Experiment, w hypothesis.Window, ths []hypothesis.Bound, s hypothesis.Sides, g grouping, h hypothesis.Hypothesis) (*Result, error) {
	metric := s.Metric
	n, ms := w.SQLArgs()
	var res *Result
	var err error
	if ths[0].Kind == "margin" {
		margins := make([]string, len(ths))
		for i, t := range ths {
			margins[i] = hypothesis.TrimRat(new(big.Rat).Abs(t.A)) + "::DECIMAL(18,6)"
		}
		q := fmt.Sprintf(`SELECT %s FROM %s, size_n := ?, size_ms := ?, margins := [%s]%s)`,
			g.sel("*"), g.call("falsification"), strings.Join(margins, ", "), s.Args())
		res, err = Query(db, "falsification", sweepUnits("falsification", metric, "margin"), q, e.Name, n, ms)
	} else {
		res, err = sweep(db, e, s, w, ths, g)
	}
	if err != nil {
		return res, err
	}
	if err := addWindowNote(db, e, w, res); err != nil || h.IsDefault() {
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

// sweepUnits are a sweep's column units: the macro's, with those in the
// metric's unit (baseline, threshold) filled in, and the threshold column
// (named after its kind) a share when it holds margins.
func sweepUnits(macro, metric, kind string) map[string]string {
	units := store.Units(macro)
	for c, u := range units {
		if u == store.MetricUnit {
			units[c] = hypothesis.MetricUnit(metric)
		}
	}
	if kind == "margin" {
		units["margin"] = "share"
	}
	return units
}

// sweep runs hypothesis_sweep; the first column (after a group's), named
// after the thresholds' kind, shows each as given.
func sweep(db store.Querier, e store.Experiment, s hypothesis.Sides, w hypothesis.Window, ths []hypothesis.Bound, g grouping) (*Result, error) {
	structs := make([]string, len(ths))
	labels := make([]string, len(ths))
	for i, t := range ths {
		lit, err := t.SQL()
		if err != nil {
			return nil, err
		}
		structs[i] = lit
		labels[i] = fmt.Sprintf("(%d, %s)", i+1, sqllit.String(t.Text))
	}
	kind := ths[0].Kind
	n, ms := w.SQLArgs()
	cols, order := "l.label AS "+kind+", s.* EXCLUDE (i)", "i"
	if g.key != "" {
		cols, order = "unnest(s.grp), l.label AS "+kind+", s.* EXCLUDE (i, grp)", "s.grp, i"
	}
	q := fmt.Sprintf(`SELECT %s
		FROM %s, [%s], size_n := ?, size_ms := ?%s) s JOIN (VALUES %s) l(i, label) USING (i)
		ORDER BY %s`, cols, g.call("hypothesis_sweep"), strings.Join(structs, ", "), s.Args(), strings.Join(labels, ", "), order)
	return Query(db, "falsification", sweepUnits("hypothesis_sweep", s.Metric, kind), q, e.Name, n, ms)
}

// checkWindowMetric refuses throughput over count windows: requests per
// second need a window length.
func checkWindowMetric(metric string, w hypothesis.Window) error {
	if metric == "throughput" && w.Ms == 0 {
		return param.Errorf("window", "metric throughput: requests per second need duration windows; give {window} 10s (say)")
	}
	return nil
}

// sidesNotes state the hypothesis as judged: the sides, the windows and each
// threshold.
func sidesNotes(s hypothesis.Sides, w hypothesis.Window, ths []hypothesis.Bound) []*param.Error {
	var notes []*param.Error
	if s.Split != "" {
		notes = append(notes, param.Textf("baseline: %s, before %s; treatment: the same run from then on (windows counted within each part)",
			runText(s.Control), s.Split))
	} else {
		ctl := runText(s.Control)
		if !s.HasControl {
			ctl = "none (absolute thresholds only)"
		}
		notes = append(notes, param.Textf("baseline: %s; treatment: %s", ctl, runText(s.Treatment)))
	}
	size := w.String() + " window"
	if w.N > 0 {
		size = fmt.Sprintf("window of %d requests", w.N)
	}
	base := "the mean of the baseline windows' values"
	if !anyRelative(ths) {
		base = "not needed (absolute thresholds)"
	}
	notes = append(notes, param.Textf("metric: %s (%s) per %s; baseline: %s", s.Metric, hypothesis.MetricUnit(s.Metric), size, base))
	for _, t := range ths {
		notes = append(notes, param.Textf("%s: %s", t.Text, t.Describe(s.Metric)))
	}
	return notes
}

// runText names a side without its time bounds.
func runText(s hypothesis.Side) string {
	s.FromMs, s.UntilMs = nil, nil
	return s.String()
}
