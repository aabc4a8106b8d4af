package analyze

import (
	"math"
	"sort"
)

// Kayenta's transforms before a metric is classified
// (NetflixACAJudge.transformMetric): NaNs removed, or replaced by 0; then,
// when asked, outliers removed by the IQR detector with reduceSensitivity.

// prepare is transformMetric for one side's values.
func prepare(v []float64, m MetricJudge) []float64 {
	out := make([]float64, 0, len(v))
	for _, e := range v {
		switch {
		case !math.IsNaN(e):
			out = append(out, e)
		case m.ReplaceNaN:
			out = append(out, 0)
		}
	}
	if !m.RemoveOutlier {
		return out
	}
	flags := iqrOutliers(out, m.OutlierFactor, true)
	kept := out[:0:0]
	for i, e := range out {
		if !flags[i] {
			kept = append(kept, e)
		}
	}
	return kept
}

// iqrOutliers is IQRDetector.detect: outside [Q1 - f·IQR, Q3 + f·IQR];
// with reduceSensitivity the fences are widened to the 1st and 99th
// percentiles when those lie further out.
func iqrOutliers(v []float64, factor float64, reduceSensitivity bool) []bool {
	p25, p75 := percentileR7(v, 25), percentileR7(v, 75)
	iqr := p75 - p25
	lower, upper := p25-factor*iqr, p75+factor*iqr
	if reduceSensitivity {
		lower = math.Min(percentileR7(v, 1), lower)
		upper = math.Max(percentileR7(v, 99), upper)
	}
	out := make([]bool, len(v))
	for i, e := range v {
		out[i] = e > upper || e < lower
	}
	return out
}

// percentileR7 is commons-math's Percentile with EstimationType.R_7 at p
// in (0, 100]: position 1 + (n-1)·p/100 in the sorted values, interpolated
// linearly; NaN for no values.
func percentileR7(v []float64, p float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64{}, v...)
	sort.Float64s(s)
	q := p / 100
	n := float64(len(s))
	pos := n
	if q != 1 {
		pos = 1 + (n-1)*q
	}
	if pos < 1 {
		return s[0]
	}
	if pos >= n {
		return s[len(s)-1]
	}
	fpos := math.Floor(pos)
	lo, hi := s[int(fpos)-1], s[int(fpos)]
	return lo + float64((pos-fpos)*(hi-lo))
}
