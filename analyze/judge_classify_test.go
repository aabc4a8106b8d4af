package analyze

import (
	"math"
	"testing"
)

// classifierCase is one test of Kayenta's ClassifierSuite: the classifier's
// parameters, the classify call's, and what the suite asserts.
type classifierCase struct {
	test         string
	tol, conf    float64
	effect, crit [2]float64 // (decrease, increase); Kayenta's default (1, 1)
	cles         bool
	dir          Direction
	replaceNaN   bool
	critical     bool
	label        string
	wantCritical *bool
	deviationNaN bool
	deviationOne bool
}

var (
	yes, no = true, false
	one     = [2]float64{1, 1}
)

var classifierCases = []classifierCase{
	{test: "Mann-Whitney Classifier Test: Pass Metric", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Either, label: labelPass},
	{test: "Mann-Whitney Classifier Test: High Metric", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Either, label: labelHigh},
	{test: "Mann-Whitney Classifier Test: Low Metric", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Either, label: labelLow},
	{test: "Mann-Whitney Classifier Directional Test: Increase", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Increase, label: labelPass},
	{test: "Mann-Whitney Classifier Directional Test: Decrease", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Decrease, label: labelPass},
	{test: "Mann-Whitney Classifier Directional Test: High Metric", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Increase, label: labelHigh, wantCritical: &no},
	{test: "Mann-Whitney Classifier Directional Test: Low Metric", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Decrease, label: labelLow},
	{test: "Mann-Whitney Classifier Test: High Metric (Large Input)", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Either, label: labelHigh, wantCritical: &no},
	{test: "Mann-Whitney Classifier Test - Mean Ratio Effect Size: High", tol: 0.10, conf: 0.95, effect: [2]float64{0.8, 1.2}, crit: one, dir: Either, label: labelHigh},
	{test: "Mann-Whitney Classifier Test - Mean Ratio Effect Size: Low", tol: 0.10, conf: 0.95, effect: [2]float64{0.8, 1.2}, crit: one, dir: Decrease, label: labelLow},
	{test: "Mann-Whitney Classifier Test - Mean Ratio Effect Size: Pass", tol: 0.10, conf: 0.95, effect: [2]float64{0.5, 1.0}, crit: one, dir: Either, label: labelPass},
	{test: "Mann-Whitney Classifier Test - Mean Ratio Effect Size: Pass (Large Input)", tol: 0.10, conf: 0.95, effect: [2]float64{1.0, 5.0}, crit: one, dir: Either, label: labelPass},
	{test: "Mann-Whitney Classifier Test - CLES Effect Size: Pass", tol: 0.20, conf: 0.98, effect: [2]float64{0.5, 0.8}, crit: one, cles: true, dir: Either, label: labelPass},
	{test: "Mann-Whitney Classifier Test - CLES Effect Size: High", tol: 0.20, conf: 0.98, effect: [2]float64{0.2, 0.8}, crit: one, cles: true, dir: Either, label: labelHigh},
	{test: "Mann-Whitney Classifier Test - CLES Effect Size: Low", tol: 0.20, conf: 0.98, effect: [2]float64{0.2, 0.8}, crit: one, cles: true, dir: Either, label: labelLow},
	{test: "Mann-Whitney Classifier Test - Critical Effect Size: Critical High", tol: 0.10, conf: 0.95, effect: one, crit: [2]float64{1.0, 1.2}, dir: Either, critical: true, label: labelHigh, wantCritical: &yes},
	{test: "Mann-Whitney Classifier Test - Critical Effect Size: Critical Low", tol: 0.10, conf: 0.95, effect: one, crit: [2]float64{1.2, 1.0}, dir: Either, critical: true, label: labelLow, wantCritical: &yes},
	{test: "Mann-Whitney Classifier Test - Critical Effect Size: High", tol: 0.10, conf: 0.95, effect: [2]float64{1.0, 5.0}, crit: [2]float64{1.0, 13.0}, dir: Either, critical: true, label: labelHigh, wantCritical: &no},
	{test: "Mann-Whitney Classifier Test - Critical Effect Size: Pass", tol: 0.10, conf: 0.95, effect: [2]float64{1.0, 13.0}, crit: [2]float64{1.0, 15.0}, dir: Either, critical: true, label: labelPass, wantCritical: &no},
	{test: "Mann-Whitney Classifier Test - Critical Effect Size: Critical High (Default Thresholds)", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Either, critical: true, label: labelHigh, wantCritical: &yes},
	{test: "Mann-Whitney Tied Observations", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Decrease, label: labelPass},
	{test: "Mann-Whitney Identical Populations", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Decrease, label: labelPass},
	{test: "Mann-Whitney Leading Zero Identical Population", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Decrease, label: labelPass},
	{test: "Mann-Whitney Missing Experiment Data", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Decrease, label: labelNodata},
	{test: "Mann-Whitney Missing Experiment Data: Critical Metric", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Decrease, critical: true, label: labelNodata, wantCritical: &yes},
	{test: "Mann-Whitney Missing Experiment Data with NaN Replacement", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Decrease, replaceNaN: true, label: labelPass},
	{test: "Mann-Whitney Missing Data: Reason String", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Decrease, critical: true, label: labelNodata},
	{test: "Mann-Whitney Majority Tied Observations", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Either, label: labelPass},
	{test: "Mann-Whitney Tied Ranks", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Either, label: labelHigh},
	{test: "Mann-Whitney Tied Ranks With Zeros", tol: 0.10, conf: 0.95, effect: one, crit: one, dir: Either, label: labelHigh},
	{test: "Mann-Whitney Zero Mean: High Metric with Effect Size", tol: 0.10, conf: 0.95, effect: [2]float64{0.8, 1.2}, crit: one, dir: Either, label: labelHigh, deviationNaN: true},
	{test: "Mann-Whitney Zero Mean: Low Metric with Effect Size", tol: 0.10, conf: 0.95, effect: [2]float64{0.8, 1.2}, crit: one, dir: Either, label: labelLow, deviationNaN: true},
	{test: "Mann-Whitney Zero Mean: Critical Metric", tol: 0.10, conf: 0.95, effect: one, crit: [2]float64{0.8, 1.2}, dir: Either, replaceNaN: true, critical: true, label: labelHigh, wantCritical: &yes},
	{test: "Mann-Whitney Zero Mean: Pass Metric", tol: 0.10, conf: 0.95, effect: [2]float64{0.8, 1.2}, crit: one, dir: Either, label: labelPass, deviationOne: true},
}

// Every Mann-Whitney test of Kayenta's ClassifierSuite (its three
// MeanInequalityClassifier tests are of another classifier).
func TestKayentaClassifierSuite(t *testing.T) {
	s := loadSuite(t, "classifier_suite.json")
	if n := len(s) - 3; n != len(classifierCases) {
		t.Fatalf("the suite has %d Mann-Whitney tests, the table %d", n, len(classifierCases))
	}
	for _, c := range classifierCases {
		a, ok := s[c.test]
		if !ok {
			t.Fatalf("no test %q in the suite", c.test)
		}
		mw := mwClassifier{tolerance: c.tol, conf: c.conf, allowed: c.effect, crit: c.crit, cles: c.cles,
			experimentLabel: "canary", controlLabel: "baseline", experimentMetric: "m"}
		v := mw.classify(a["controlData"], a["experimentData"], c.dir, c.replaceNaN, c.critical, false)
		if v.Label != c.label {
			t.Errorf("%s: %s (%s), want %s", c.test, v.Label, v.DecidedBy, c.label)
		}
		if c.wantCritical != nil && v.Critical != *c.wantCritical {
			t.Errorf("%s: critical %t, want %t", c.test, v.Critical, *c.wantCritical)
		}
		if c.deviationNaN && !math.IsNaN(v.Deviation) || c.deviationOne && v.Deviation != 1 {
			t.Errorf("%s: deviation %v", c.test, v.Deviation)
		}
		if c.label == labelNodata && v.Reason == "" {
			t.Errorf("%s: no reason", c.test)
		}
	}
}
