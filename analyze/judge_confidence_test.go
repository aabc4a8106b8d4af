package analyze

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// suiteLog writes two vectors as one request per 60 s step and side, so
// each step's mean is the vector's value.
func suiteLog(experiment, control []float64) string {
	var b strings.Builder
	for _, side := range []struct {
		run string
		v   []float64
	}{{"control", control}, {"experiment", experiment}} {
		for i, v := range side.v {
			fmt.Fprintf(&b, `{"run":%q,"req":%d,"attempt":1,"t_ms":%d,"latency_ms":%g,"outcome":"ok","tagged":false}`+"\n", side.run, i, i*60000+1, v)
		}
	}
	return b.String()
}

// judgeMean judges the mean of a suite's vectors at conf through Judge, and
// returns the metric row's lower, upper and estimate.
func judgeMean(t *testing.T, experiment, control []float64, conf float64) (lo, hi, est float64) {
	t.Helper()
	db := logsDB(t, suiteLog(experiment, control))
	m, _, err := Judge(db, JudgeOptions{Metrics: []MetricJudge{DefaultMetricJudge("mean", "latency")}, Confidence: conf})
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) float64 {
		for i, c := range m.Columns {
			if c.Name == name {
				f, _ := m.Rows[0][i].(float64)
				return f
			}
		}
		t.Fatalf("no column %s in %v", name, m.Columns)
		return 0
	}
	return col("lower"), col("upper"), col("estimate")
}

// Judge at Confidence 0.95 gives the intervals of Kayenta's
// MannWhitneySuite at 0.95: every printed digit of the small vector, and
// the tie-out with R within the suite's tolerances (1e-6 the ends, 1e-4
// the estimate).
func TestJudgeConfidenceKayenta(t *testing.T) {
	s := loadSuite(t, "mannwhitney_suite.json")
	a := s["Mann-Whitney Confidence Interval & Estimate"]
	lo, hi, est := judgeMean(t, a["experimentData"], a["controlData"], 0.95)
	checkDigits(t, "lower", "6.0", lo)
	checkDigits(t, "upper", "39.0", hi)
	checkDigits(t, "estimate", "22.5", est)

	r := s["Mann-Whitney Confidence Interval & Estimate: Tie out with R Version"]
	lo, hi, est = judgeMean(t, r["experiment"], r["control"], 0.95)
	for _, c := range []struct {
		what      string
		got, want float64
		tol       float64
	}{{"lower", lo, -0.500002521696696, 1e-6}, {"upper", hi, -3.486287505871302e-5, 1e-6}, {"estimate", est, -0.4999393907180323, 1e-4}} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("tie-out %s: %v, want %v within %g", c.what, c.got, c.want, c.tol)
		}
	}
	// Kayenta's default, 0.98, is a wider interval: the level reaches the test
	lo98, hi98, _ := judgeMean(t, r["experiment"], r["control"], 0)
	if !(lo98 < lo && hi98 > hi) {
		t.Errorf("0.98: [%v, %v], not wider than 0.95's [%v, %v]", lo98, hi98, lo, hi)
	}
}

func TestJudgeConfidenceRefused(t *testing.T) {
	for _, c := range []float64{1, 1.5, -0.2, math.NaN()} {
		o := JudgeOptions{Confidence: c}.withDefaults()
		if err := o.checkMetrics(); err == nil || !strings.HasPrefix(err.Error(), "confidence ") {
			t.Errorf("%v: %v", c, err)
		}
	}
}
