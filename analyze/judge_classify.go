package analyze

import (
	"math"
	"sort"
)

// Kayenta's metric classification: NetflixACAJudge.classifyMetric, its
// MannWhitneyClassifier and the effect sizes (docs/judge.md).

// Direction is the change that fails a metric.
type Direction string

const (
	Either   Direction = "either"
	Increase Direction = "increase"
	Decrease Direction = "decrease"
)

// The metric labels, spelled as Kayenta prints them.
const (
	labelPass     = "Pass"
	labelHigh     = "High"
	labelLow      = "Low"
	labelNodata   = "Nodata"
	labelNodataMF = "NodataFailMetric"
	labelError    = "Error"
)

// MetricJudge is one metric's analysis configuration, Kayenta's
// canary.* keys with Kayenta's defaults (DefaultMetricJudge).
type MetricJudge struct {
	Name          string
	Groups        []string
	Direction     Direction
	ReplaceNaN    bool    // nanStrategy replace (NaN → 0); default remove
	RemoveOutlier bool    // outliers.strategy remove
	OutlierFactor float64 // outliers.outlierFactor, default 3
	Critical      bool
	MustHaveData  bool
	Muted         bool
	CLES          bool // effectSize.measure cles; default meanRatio
	// AllowedIncrease, AllowedDecrease, CriticalIncrease, CriticalDecrease:
	// effect-size thresholds; NaN takes the measure's default (1 for
	// meanRatio, 0.5 for CLES).
	AllowedIncrease, AllowedDecrease, CriticalIncrease, CriticalDecrease float64
}

// DefaultMetricJudge is a metric as Kayenta configures one by default.
func DefaultMetricJudge(name string, groups ...string) MetricJudge {
	nan := math.NaN()
	return MetricJudge{Name: name, Groups: groups, Direction: Either, OutlierFactor: 3,
		AllowedIncrease: nan, AllowedDecrease: nan, CriticalIncrease: nan, CriticalDecrease: nan}
}

// mwClassifier is Kayenta's MannWhitneyClassifier; the judge builds it with
// tolerance 0.25 and confidence 0.98.
type mwClassifier struct {
	tolerance, conf  float64
	allowed, crit    [2]float64 // (decrease, increase)
	cles             bool
	experimentLabel  string // "Canary" and "Baseline" in NetflixACAJudge
	controlLabel     string
	experimentMetric string
}

// metricVerdict is a metric's classification with the internals that led
// to it.
type metricVerdict struct {
	Label     string
	Reason    string // Kayenta's classificationReason, "" for none
	Deviation float64
	Critical  bool
	DecidedBy string // which gate decided
	// The test, when it ran: the interval, the estimate, the bounds
	// ±tolerance·|estimate|, the effect size.
	Tested                 bool
	Lower, Upper, Estimate float64
	Bound, EffectSize      float64
	Degenerate             bool // both sides constant: the deterministic rule
}

// classify is MannWhitneyClassifier.classify: the special cases in
// Kayenta's order, then the test, then the critical thresholds.
func (c mwClassifier) classify(control, experiment []float64, dir Direction, replaceNaN, critical, dataRequired bool) metricVerdict {
	name := c.experimentMetric
	if len(experiment) == 0 || len(control) == 0 {
		if replaceNaN {
			return metricVerdict{Label: labelPass, Deviation: 1, DecidedBy: "no data (nanStrategy replace)"}
		}
		v := metricVerdict{Label: labelNodata, Reason: "Missing data for " + name, Deviation: 1, Critical: critical, DecidedBy: "no data"}
		if dataRequired && !critical {
			v.Label, v.Critical = labelNodataMF, false
		}
		return v
	}
	if sameSorted(experiment, control) {
		return metricVerdict{Label: labelPass, Reason: "The " + c.experimentLabel + " and " + c.controlLabel + " data are identical",
			Deviation: 1, DecidedBy: "identical"}
	}
	if distinctCount(experiment, control) == 1 {
		return metricVerdict{Label: labelPass, Deviation: 1, DecidedBy: "one value"}
	}
	v, err := c.compare(control, experiment, dir)
	if err != nil {
		return metricVerdict{Label: labelError, Reason: "Metric Classification Failed", Deviation: math.NaN(), DecidedBy: "error: " + err.Error()}
	}
	return c.critical(v, critical)
}

// critical applies the critical effect-size thresholds to a High or Low.
func (c mwClassifier) critical(v metricVerdict, critical bool) metricVerdict {
	nan := math.IsNaN(v.EffectSize)
	switch {
	case critical && v.Label == labelHigh && (nan || v.EffectSize >= c.crit[1]):
		v.Reason = "The metric " + c.experimentMetric + " was classified as High (Critical)"
		v.Critical = true
		v.DecidedBy += ", critical increase"
	case critical && v.Label == labelLow && (nan || v.EffectSize <= c.crit[0]):
		v.Reason = "The metric " + c.experimentMetric + " was classified as Low (Critical)"
		v.Critical = true
		v.DecidedBy += ", critical decrease"
	}
	return v
}

// compare runs the test and weighs the interval against the bounds and the
// effect size against the allowed change (an effect size that cannot be
// computed, NaN, is not weighed).
func (c mwClassifier) compare(control, experiment []float64, dir Direction) (metricVerdict, error) {
	r, degenerate, err := c.test(experiment, control)
	if err != nil {
		return metricVerdict{}, err
	}
	bound := c.tolerance * math.Abs(r.Estimate)
	v := metricVerdict{Label: labelPass, Tested: true, Lower: r.Lower, Upper: r.Upper, Estimate: r.Estimate,
		Bound: bound, Degenerate: degenerate, Deviation: meanRatio(control, experiment)}
	v.EffectSize = v.Deviation
	if c.cles {
		v.EffectSize = cles(control, experiment)
	}
	nan := math.IsNaN(v.EffectSize)
	up := dir == Increase || dir == Either
	down := dir == Decrease || dir == Either
	above, below := r.Lower > bound, r.Upper < -bound
	switch {
	case up && above && (nan || v.EffectSize >= c.allowed[1]):
		v.Label, v.Reason, v.DecidedBy = labelHigh, c.experimentMetric+" was classified as High", "interval above +bound, effect size"
	case down && below && (nan || v.EffectSize <= c.allowed[0]):
		v.Label, v.Reason, v.DecidedBy = labelLow, c.experimentMetric+" was classified as Low", "interval below -bound, effect size"
	case (above && !up) || (below && !down):
		v.DecidedBy = "direction"
	case above || below:
		v.DecidedBy = "effect size"
	default:
		v.DecidedBy = "interval within bounds"
	}
	return v, nil
}

// test is MannWhitneyUTest. Where Kayenta adds Gaussian noise (both sides
// constant, at different values: every pair differs by the same d), the
// judge takes the noise's limit instead: interval [d, d], estimate d. A
// side at 0 gets no noise in Kayenta either (its scale is value·1e-5).
func (c mwClassifier) test(experiment, control []float64) (mwResult, bool, error) {
	if distinctCount(experiment, nil) == 1 && distinctCount(control, nil) == 1 {
		d := experiment[0] - control[0]
		return mwResult{Lower: d, Upper: d, Estimate: d}, true, nil
	}
	r, err := mannWhitney(experiment, control, c.conf)
	return r, false, err
}

// meanRatio is EffectSizes.meanRatio: experiment mean / control mean, NaN
// when either mean is 0.
func meanRatio(control, experiment []float64) float64 {
	cm, em := mean(control), mean(experiment)
	if cm == 0 || em == 0 {
		return math.NaN()
	}
	return em / cm
}

// mean is commons-math's StatUtils.mean: the sum over n, corrected by the
// mean deviation (its two-pass Mean).
func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	n := float64(len(v))
	var sum float64
	for _, e := range v {
		sum += e
	}
	m := sum / n
	var corr float64
	for _, e := range v {
		corr += e - m
	}
	return m + corr/n
}

// cles is EffectSizes.cles: the share of (experiment, control) pairs where
// the experiment is higher, ties half, from the experiment's rank sum.
func cles(control, experiment []float64) float64 {
	m, n := float64(len(experiment)), float64(len(control))
	ranks, _ := averageRanks(append(append([]float64{}, experiment...), control...))
	var r1 float64
	for _, r := range ranks[:len(experiment)] {
		r1 += r
	}
	return (2*r1 - m*(m+1)) / (2 * n * m)
}

func sameSorted(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := sortedCopy(a), sortedCopy(b)
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

func sortedCopy(v []float64) []float64 {
	s := append([]float64{}, v...)
	sort.Float64s(s)
	return s
}

// distinctCount is the number of distinct values of a and b together.
func distinctCount(a, b []float64) int {
	seen := map[float64]bool{}
	for _, v := range append(append([]float64{}, a...), b...) {
		seen[v] = true
	}
	return len(seen)
}
