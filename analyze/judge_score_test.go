package analyze

import (
	"strings"
	"testing"
)

// Kayenta's ScorerSuite and the IQR tests of its DetectorSuite, written
// out here (their inputs are a few labels and numbers).

func jm(label, group string, critical bool) judgedMetric {
	return judgedMetric{Name: label + "-" + group, Groups: []string{group}, Label: label, Critical: critical,
		Reason: "The metric was classified as " + label}
}

func TestKayentaScorerSuite(t *testing.T) {
	for _, c := range []struct {
		test    string
		weights map[string]float64
		metrics []judgedMetric
		want    float64
	}{
		{"Single Metric Pass", nil, []judgedMetric{jm(labelPass, "g", false)}, 100},
		{"Single Metric Fail", nil, []judgedMetric{jm(labelHigh, "g", false)}, 0},
		{"Single group Nodata", nil, []judgedMetric{jm(labelNodata, "nodata", false)}, 0},
		{"Two Groups, one Pass, one Nodata", nil, []judgedMetric{jm(labelPass, "pass", false), jm(labelPass, "pass", false), jm(labelNodata, "nodata", false)}, 100},
		{"One Group, Two Metrics", nil, []judgedMetric{jm(labelPass, "g", false), jm(labelHigh, "g", false)}, 50},
		{"One Group, Three Metrics", nil, []judgedMetric{jm(labelPass, "g", false), jm(labelHigh, "g", false), jm(labelLow, "g", false)}, 33.33},
		{"Two Groups, Three Metrics", map[string]float64{"group-1": 75, "group-2": 25},
			[]judgedMetric{jm(labelPass, "group-1", false), jm(labelPass, "group-1", false), jm(labelHigh, "group-2", false)}, 75},
		{"Two Groups, Three Metrics (Equal Weight)", map[string]float64{"group-1": 50, "group-2": 50},
			[]judgedMetric{jm(labelPass, "group-1", false), jm(labelHigh, "group-1", false), jm(labelHigh, "group-2", false)}, 25},
		{"Two Groups, Three Metrics (Equal Weight), one NoData", map[string]float64{"group-1": 50, "group-2": 50},
			[]judgedMetric{jm(labelPass, "group-1", false), jm(labelNodata, "group-1", false), jm(labelHigh, "group-2", false)}, 50},
		{"Two Metrics, one good (normal), one fail (critical)", nil, []judgedMetric{jm(labelPass, "g", false), jm(labelHigh, "g", true)}, 0},
		{"Two Metrics, one low (normal), one good (critical)", nil, []judgedMetric{jm(labelLow, "g", false), jm(labelPass, "g", true)}, 50},
		{"Two Metrics, one good (normal), one nodata (critical)", nil, []judgedMetric{jm(labelPass, "g", false), jm(labelNodata, "g", true)}, 0},
		{"Two Groups (Unequal Weight), Four Metrics", map[string]float64{"group1": 15, "group2": 85},
			[]judgedMetric{jm(labelHigh, "group1", false), jm(labelLow, "group1", false), jm(labelPass, "group1", false), jm(labelHigh, "group2", false)}, 5},
	} {
		s := scoreMetrics(c.metrics, c.weights, 95, 75)
		if s.Score != c.want {
			t.Errorf("%s: score %v, want %v", c.test, s.Score, c.want)
		}
	}
}

// The summary's classification and reasons, and muted metrics left out.
func TestJudgeScoreClasses(t *testing.T) {
	m := []judgedMetric{jm(labelPass, "a", false), jm(labelPass, "a", false), jm(labelHigh, "b", false)}
	for _, c := range []struct {
		pass, marginal float64
		want           string
	}{{50, 25, "Pass"}, {60, 50, "Marginal"}, {60, 51, "Fail"}} {
		if got := scoreMetrics(m, nil, c.pass, c.marginal); got.Classification != c.want || got.Score != 50 {
			t.Errorf("pass %v marginal %v: %s %v, want %s 50", c.pass, c.marginal, got.Classification, got.Score, c.want)
		}
	}
	m[2].Muted = true
	if got := scoreMetrics(m, nil, 95, 75); got.Score != 100 {
		t.Errorf("muted High counted: %v", got.Score)
	}
	m[2].Muted, m[2].Critical = false, true
	if got := scoreMetrics(m, nil, 95, 75); got.Score != 0 || !strings.HasPrefix(got.Reason, "Canary Failed: ") {
		t.Errorf("critical High: %+v", got)
	}
	if got := scoreMetrics([]judgedMetric{jm(labelNodata, "a", false), jm(labelPass, "b", false)}, nil, 95, 75); got.Reason != "Canary Failed: 50% or more metrics returned NODATA" {
		t.Errorf("half Nodata: %+v", got)
	}
}

func TestRoundHalfUp(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{33.333333333333336, 33.33}, {0.125, 0.13}, {-0.125, -0.13}, {2.675, 2.68}, {1.005, 1.01}, {66.66666666666667, 66.67},
	} {
		if got := roundHalfUp(c.x, 2); got != c.want {
			t.Errorf("roundHalfUp(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

func TestKayentaIQRDetector(t *testing.T) {
	nist := []float64{30, 171, 184, 201, 212, 250, 265, 270, 272, 289, 305, 306, 322, 322, 336, 346,
		351, 370, 390, 404, 409, 411, 436, 437, 439, 441, 444, 448, 451, 453, 470, 480,
		482, 487, 494, 495, 499, 503, 514, 521, 522, 527, 548, 550, 559, 560, 570, 572,
		574, 578, 585, 592, 592, 607, 616, 618, 621, 629, 637, 638, 640, 656, 668, 707,
		709, 719, 737, 739, 752, 758, 766, 792, 792, 794, 802, 818, 830, 832, 843, 858,
		860, 869, 918, 925, 953, 991, 1000, 1005, 1068, 1441}
	for _, c := range []struct {
		test string
		data []float64
		out  []int // indexes flagged
	}{
		{"IQR Detection", []float64{21, 23, 24, 25, 50, 29, 23, 21}, []int{4}},
		{"IQR Detect Two Sided", []float64{1, 1, 1, 5, -1, -1, -1, -5}, []int{3, 7}},
		{"IQR Empty Data", nil, nil},
		{"IQR NIST Test", nist, []int{len(nist) - 1}},
	} {
		got := iqrOutliers(c.data, 1.5, false)
		want := make([]bool, len(c.data))
		for _, i := range c.out {
			want[i] = true
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: flags %v, want %v", c.test, got, want)
				break
			}
		}
	}
}

// With reduceSensitivity (the judge's setting) and factor 3: the fences
// are min(p1, Q1 - 3·IQR) and max(p99, Q3 + 3·IQR), R-7 percentiles.
func TestJudgeOutlierFences(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100}
	// Q1 = 3.5, Q3 = 8.5, IQR 5: fences -11.5 and 23.5; p99 = 91 lies
	// beyond 23.5, so the upper fence is 91 (position 1 + 10·0.99, which
	// rounds to 10.900000000000000355) and 100 is still out.
	if got := percentileR7(v, 99); got != 91.00000000000003 {
		t.Fatalf("p99 = %v, want 91.00000000000003", got)
	}
	got := prepare(v, MetricJudge{RemoveOutlier: true, OutlierFactor: 3})
	if len(got) != 10 || got[9] != 10 {
		t.Errorf("kept %v", got)
	}
	nan := prepare([]float64{1, nanV(), 3}, MetricJudge{ReplaceNaN: true})
	if len(nan) != 3 || nan[1] != 0 {
		t.Errorf("replace: %v", nan)
	}
	if r := prepare([]float64{1, nanV(), 3}, MetricJudge{}); len(r) != 2 {
		t.Errorf("remove: %v", r)
	}
}

func nanV() float64 { var z float64; return z / z }
