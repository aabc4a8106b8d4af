package analyze

import (
	"math"
	"testing"
)

// The gates Kayenta's vectors leave untouched, each pinned by a case of
// its own: the clamping of the interval's ends, the tolerance bound, the
// identical-data rule, the widened outlier fences, and the correctly
// rounded log the quantile is taken with.

// With two values a side no shift reaches 98 %: both ends are clamped to
// the range of shifts, [min x - max y, max x - min y].
func TestJudgeIntervalClamped(t *testing.T) {
	x, y := []float64{1, 2}, []float64{3, 4}
	r, err := mannWhitney(x, y, 0.98)
	if err != nil {
		t.Fatal(err)
	}
	if r.Lower != -3 || r.Upper != -1 {
		t.Errorf("interval [%v, %v], want the clamped [-3, -1]", r.Lower, r.Upper)
	}
}

// An interval clear of 0 but not of 0.25·|estimate| passes: the bound, not
// 0, is the gate.
func TestJudgeToleranceBound(t *testing.T) {
	var control, experiment []float64
	for i := 1; i <= 30; i++ {
		control = append(control, float64(i))
		experiment = append(experiment, float64(i)+7)
	}
	c := DefaultMetricJudge("m").classifier()
	v := c.classify(control, experiment, Either, false, false, false)
	if !(v.Lower > 0 && v.Lower <= v.Bound) || v.Label != labelPass || v.DecidedBy != "interval within bounds" {
		t.Errorf("%+v: want an interval above 0 but within +bound, and Pass", v)
	}
}

func TestJudgeIdenticalReason(t *testing.T) {
	c := DefaultMetricJudge("m").classifier()
	v := c.classify([]float64{5, 4, 3, 2, 1}, []float64{1, 2, 3, 4, 5}, Either, false, false, false)
	if v.Reason != "The Canary and Baseline data are identical" || v.DecidedBy != "identical" {
		t.Errorf("%+v", v)
	}
	v = c.classify([]float64{2, 2}, []float64{2, 2, 2}, Either, false, false, false)
	if v.Label != labelPass || v.DecidedBy != "one value" || v.Reason != "" {
		t.Errorf("one value: %+v", v)
	}
}

// reduceSensitivity keeps what lies within the 99th percentile even past
// Q3 + 3·IQR: two tied maxima make p99 the maximum.
func TestJudgeOutlierP99Fence(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 40, 40}
	if got := prepare(v, MetricJudge{RemoveOutlier: true, OutlierFactor: 3}); len(got) != 12 {
		t.Errorf("reduced sensitivity kept %v, want all 12", got)
	}
	flags := iqrOutliers(v, 3, false)
	if !flags[10] || !flags[11] {
		t.Errorf("plain IQR fences (Q3 9.25 + 3·5.5 = 25.75): flags %v, want both 40s out", flags)
	}
}

// crLog against glibc's log (as R and Java get it), at points where Go's
// math.Log is one ulp off and elsewhere.
func TestJudgeCorrectlyRoundedLog(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{0.010000000000000009, -4.605170185988091}, {0.025000000000000022, -3.6888794541139354},
		{0.0975, -2.3279029009783354}, {0.19, -1.6607312068216509}, {1e-300, -690.7755278982137},
		{123456.789, 11.723646487185881}, {0.5000000000000001, -0.6931471805599451}, {2.0, 0.6931471805599453},
	} {
		if got := crLog(c.x); got != c.want {
			t.Errorf("crLog(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if !math.IsInf(crLog(0), -1) {
		t.Error("crLog(0) is not -Inf")
	}
}
