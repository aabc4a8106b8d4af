package analyze

import (
	"strings"
	"testing"
	"time"
)

// A schedule that would make more measurements than the bound is refused
// before any is made, naming what sets it: a metric's interval, {every},
// or the span (the log's end).
func TestGateSpanBound(t *testing.T) {
	bind := map[string]string{"m": "ok_share", "request-success-rate": "ok_percent", "a": "ok_share"}
	day := 86_400_000.0
	for _, c := range []struct {
		kind, yaml string
		every      time.Duration
		end        float64
		want       string
	}{
		{"argo", "kind: AnalysisTemplate\nspec:\n  metrics:\n  - name: m\n    interval: 1ms\n    successCondition: result[0] > 0.9\n", 0, day,
			`a.yaml: metric "m", measured every 1ms, over the replay from 0 to 86400000 ms makes 86400001 measurements, more than 100000: until ends the replay sooner`},
		{"argo", "kind: AnalysisTemplate\nspec:\n  metrics:\n  - name: m\n    interval: 1m\n", 0, 1e15, `metric "m", retried every 10 s after an error, over the replay from 0 to 1000000000000000 ms makes 100000000001 measurements`},
		{"flagger", "kind: Canary\nspec:\n  analysis:\n    interval: 10s\n    threshold: 2\n    stepWeight: 10\n    metrics:\n    - name: request-success-rate\n      thresholdRange: {min: 99}\n", 0, 1e15,
			"a.yaml: the analysis interval 10s over the replay from 0 to 1000000000000000 ms makes 100000000001 measurements"},
		{"keptn", "objectives:\n- sli: a\n  pass: [{criteria: ['<=1']}]\ntotal_score: {pass: 90%}\n", time.Millisecond, day, "every 1ms over the replay"},
	} {
		src := &gateSource{cache: map[gateWindow]gateValues{}}
		o := GateOptions{Kind: c.kind, File: "a.yaml", Data: []byte(c.yaml), Metrics: bind, Every: c.every}
		var err error
		switch c.kind {
		case "argo":
			_, err = replayArgo(src, o, c.end, &Result{})
		case "flagger":
			_, err = replayFlagger(src, o, c.end, &Result{})
		default:
			_, err = replayKeptn(src, o, c.end, &Result{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.kind, err, c.want)
		}
		if len(src.cache) > 0 {
			t.Errorf("%s: %d windows read before the refusal", c.kind, len(src.cache))
		}
	}
}

// Keptn adds weights into the total score: a negative one would lower the
// maximum and let a failing objective pass.
func TestKeptnNegativeWeight(t *testing.T) {
	_, err := keptnTestSLO("objectives:\n- sli: a\n  weight: -1\n  pass: [{criteria: ['<=1']}]\ntotal_score: {pass: 90%}\n", map[string]string{"a": "p95"})
	if err == nil || err.Error() != `slo.yaml:2: objective "a": weight -1: want a weight of 0 (meaning 1) or more` {
		t.Errorf("weight -1: %v", err)
	}
}

// Keptn and Flagger type errors name the objective or metric, not a Go type.
func TestGateYAMLTypeErrors(t *testing.T) {
	_, err := keptnTestSLO("total_score: {pass: 90%}\nobjectives:\n- sli: a\n  weight: x\n", map[string]string{"a": "p95"})
	if err == nil || err.Error() != `slo.yaml:4: objectives[0]: want a number, got the text "x"` {
		t.Errorf("keptn: %v", err)
	}
	_, err = readFlagger(GateOptions{File: "c.yaml", Data: []byte("kind: Canary\nspec:\n  analysis:\n    stepWeight: 5\n    metrics:\n    - name: [1]\n"), Metrics: map[string]string{}})
	if err == nil || err.Error() != `c.yaml:6: analysis.metrics[0]: want text, got a list` {
		t.Errorf("flagger: %v", err)
	}
}
