package analyze

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// StopDamageOptions steer StopDamage.
type StopDamageOptions struct {
	Experiment string
	Window     hypothesis.Window
	Margin     float64 // default 0.10
	MarginSet  bool
	Ks         []int64 // default 1, 2, 3, 4
	Hypothesis hypothesis.Hypothesis
	Bound      *hypothesis.Bound // replaces Margin when set
	By         []string          // fields whose values split each side into groups (docs/by.md)
	// Windows, on an engine: pull the sides' windows too, so that
	// _hyp_windows reads them after the call (the report's timeline); else
	// the streaks are judged on the engine and only blocks come back.
	Windows bool
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
	ks, err := stopKs(o.Ks)
	if err != nil {
		return nil, err
	}
	f, a, err := th.Millionths()
	if err != nil {
		return nil, err
	}
	g, err := groupBy(db, e.Name, o.By)
	if err != nil {
		return nil, err
	}
	if err := checkStopDamageGroups(db, e.Name, g, o.By); err != nil {
		return nil, err
	}
	return stopDamageOf(db, e, w, s, th, f, a, ks, g, o.Hypothesis, func() (bool, error) { return hypothesis.HasTags(db, s.Treatment) })
}

// stopKSet is the ks stop_damage reads, with 1 (extra_over_k1's), sorted
// and distinct; stopKs has checked them.
func stopKSet(ks []int64) []int64 {
	if len(ks) == 0 {
		ks = []int64{1, 2, 3, 4}
	}
	out := append([]int64{1}, ks...)
	slices.Sort(out)
	return slices.Compact(out)
}

// stopKs checks the ks, 1, 2, 3, 4 by default, and writes them as SQL.
func stopKs(ks []int64) (string, error) {
	if len(ks) == 0 {
		ks = []int64{1, 2, 3, 4}
	}
	parts := make([]string, len(ks))
	for i, k := range ks {
		if k < 1 {
			return "", fmt.Errorf("k %d: want 1 or more consecutive windows", k)
		}
		parts[i] = strconv.FormatInt(k, 10)
	}
	return strings.Join(parts, ", "), nil
}

// stopDamageOf runs stop_damage over the sides' windows and adds its
// notes; hasTags says whether the treatment side has tagged requests.
func stopDamageOf(db store.Querier, e store.Experiment, w hypothesis.Window, s hypothesis.Sides, th hypothesis.Bound, f, a *big.Int, ks string,
	g grouping, h hypothesis.Hypothesis, hasTags func() (bool, error)) (*Result, error) {
	n, ms := w.SQLArgs()
	q := fmt.Sprintf(`SELECT %s FROM %s, size_n := ?, size_ms := ?, ks := [%s], f := %s, a := %s%s)`,
		g.sel("*"), g.call("stop_damage"), ks, f, a, s.Args())
	res, err := Query(db, "stop-damage", store.Units("stop_damage"), q, e.Name, n, ms)
	if err != nil {
		return nil, err
	}
	if err := addWindowNote(db, e, w, res); err != nil {
		return nil, err
	}
	if !h.IsDefault() {
		res.Notes = append(res.Notes, sidesNotes(s, w, []hypothesis.Bound{th})...)
	}
	tagged, err := hasTags()
	if err != nil {
		return nil, err
	}
	if !tagged || !h.IsDefault() {
		res.Notes = append(res.Notes, param.Textf("%s", hypothesis.DamageNote(tagged)))
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
