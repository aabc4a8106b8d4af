package analyze

import (
	"math/big"
	"strings"
	"testing"
	"time"
)

// simArgo runs the Argo replay against values from f instead of SQL.
func simArgo(t *testing.T, ms []argoMetric, end float64, f func(w gateWindow) gateValues) ([][]any, gateDecision) {
	t.Helper()
	cache := map[gateWindow]gateValues{}
	for range 100 {
		rows, d, missing := simulateArgo(ms, cache, 0, end)
		if len(missing) == 0 {
			return rows, d
		}
		for _, w := range missing {
			cache[w] = f(w)
		}
	}
	t.Fatal("schedule did not settle")
	return nil, gateDecision{}
}

func okShare(ok, n int64) gateValues { return gateValues{requests: n, ok: ok, latSum: new(big.Int)} }

func argoTestMetric(succ string) argoMetric {
	return argoMetric{Name: "m", Interval: 10 * time.Second, HasInterval: true, SuccessCondition: succ,
		ConsecutiveErrorLimit: 4, Bound: "ok_share", Window: 10 * time.Second, Vector: true}
}

// The later limit wins, as in assessMetricFailureInconclusiveOrError:
// consecutive errors over inconclusive over failed.
func TestArgoLimitPrecedence(t *testing.T) {
	s := &argoState{m: argoMetric{FailureLimit: 0, InconclusiveLimit: 0, ConsecutiveErrorLimit: 1}, failed: 1, inconclusive: 1}
	if p, _ := s.limits(); p != "Inconclusive" {
		t.Errorf("failed and inconclusive over their limits: %s, want Inconclusive", p)
	}
	s.consecErr = 2
	if p, msg := s.limits(); p != "Error" || msg != "consecutiveErrors (2) > consecutiveErrorLimit (1)" {
		t.Errorf("with consecutive errors too: %s %q, want Error", p, msg)
	}
	s = &argoState{m: argoMetric{FailureLimit: -1, ConsecutiveSuccessLimit: 2, Count: 3, HasInterval: true}, taken: 3, count: 3, consecSucc: 1}
	if p := s.assess(false); p != "Failed" {
		t.Errorf("count reached, consecutiveSuccessLimit not, failureLimit disabled: %s, want Failed", p)
	}
	s.m.FailureLimit = 0
	if p := s.assess(false); p != "Inconclusive" {
		t.Errorf("count reached, consecutiveSuccessLimit not, failureLimit applicable: %s, want Inconclusive", p)
	}
}

// Conditions through expr, as Argo: a tie at the threshold is decided by
// the exact value (99/100 is the double 0.99), neither condition true is
// Inconclusive, an empty vector errs.
func TestArgoMeasure(t *testing.T) {
	m := argoTestMetric("result[0] >= 0.99")
	if p, _ := argoMeasure(m, big.NewRat(99, 100), true); p != "Successful" {
		t.Errorf("99/100 >= 0.99: %s", p)
	}
	if p, _ := argoMeasure(m, big.NewRat(9899, 10000), true); p != "Failed" {
		t.Errorf("0.9899 >= 0.99: %s", p)
	}
	m.FailureCondition = "result[0] < 0.9"
	if p, _ := argoMeasure(m, big.NewRat(95, 100), true); p != "Inconclusive" {
		t.Errorf("between the conditions: %s", p)
	}
	if p, msg := argoMeasure(m, nil, false); p != "Error" || !strings.Contains(msg, "index out of range") {
		t.Errorf("empty vector: %s %q", p, msg)
	}
	m.Vector = false
	m.SuccessCondition, m.FailureCondition = "isNaN(result) || result > 0.5", ""
	if p, _ := argoMeasure(m, nil, false); p != "Successful" {
		t.Errorf("scalar NaN through isNaN: %s", p)
	}
}

// Windows without requests err; an error is retried after 10 s, not the
// interval; the fifth consecutive error (limit 4) ends the run in Error.
func TestArgoConsecutiveErrors(t *testing.T) {
	m := argoTestMetric("result[0] >= 0.9")
	m.Interval = time.Minute
	rows, d := simArgo(t, []argoMetric{m}, 600000, func(gateWindow) gateValues { return okShare(0, 0) })
	if d.decision != "Error" || d.at != 40000 || len(rows) != 5 {
		t.Fatalf("decision %s at %v after %d measurements, want Error at 40000 after 5", d.decision, d.at, len(rows))
	}
}

// failureLimit 1: the second failure fails the run, at its measurement.
func TestArgoFailureLimit(t *testing.T) {
	m := argoTestMetric("result[0] >= 0.9")
	m.FailureLimit = 1
	bad := map[float64]bool{20000: true, 40000: true}
	_, d := simArgo(t, []argoMetric{m}, 600000, func(w gateWindow) gateValues {
		if bad[w.until] {
			return okShare(8, 10)
		}
		return okShare(10, 10)
	})
	if d.decision != "Failed" || d.at != 40000 || !strings.Contains(d.reason, "failed (2) > failureLimit (1)") {
		t.Fatalf("got %+v, want Failed at 40000", d)
	}
	m.Count = 3
	_, d = simArgo(t, []argoMetric{m}, 600000, func(w gateWindow) gateValues { return okShare(10, 10) })
	if d.decision != "Successful" || d.at != 20000 {
		t.Fatalf("count 3: got %+v, want Successful at 20000", d)
	}
}

// One metric failing terminates the run: the other, still running, is
// assessed Successful and the run takes the worst phase at once.
func TestArgoTerminates(t *testing.T) {
	a, b := argoTestMetric("result[0] >= 0.9"), argoTestMetric("true")
	b.Name = "other"
	_, d := simArgo(t, []argoMetric{a, b}, 600000, func(w gateWindow) gateValues {
		if w.until == 10000 {
			return okShare(1, 10)
		}
		return okShare(10, 10)
	})
	if d.decision != "Failed" || d.at != 10000 {
		t.Fatalf("got %+v, want Failed at 10000", d)
	}
}

func TestArgoReadErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"kind: AnalysisTemplate\nspec:\n  metrics:\n  - name: a\n    count: 2\n", "t.yaml:4: metrics[0] \"a\": interval must be specified when count > 1"},
		{"kind: AnalysisTemplate\nspec:\n  metrics:\n  - name: a\n    interval: 5x\n", "t.yaml:4: field \"interval\""},
		{"kind: AnalysisTemplate\nspec:\n  metrics: [\n", "t.yaml:3: did not find expected node content"},
		{"kind: AnalysisTemplate\nspec:\n  metrics:\n  - name: b\n", "t.yaml:4: Argo metric \"b\" has no rewind metric"},
		{"kind: Rollout\n", "t.yaml: no AnalysisTemplate"},
		// type errors in the file's words, at the metric's path, no Go types
		{"kind: AnalysisTemplate\nspec:\n  metrics:\n  - [1]\n", "t.yaml:4: metrics[0]: want a mapping, got a list"},
		{"kind: AnalysisTemplate\nspec:\n  metrics:\n  - name: a\n  - name: b\n    successCondition: [x]\n", "t.yaml:6: metrics[1]: want text, got a list"},
		{"kind: AnalysisTemplate\nspec:\n  metrics: abc\n", "t.yaml:3: want a list, got the text \"abc\""},
	} {
		_, err := readArgo(GateOptions{File: "t.yaml", Data: []byte(c.yaml), Metrics: map[string]string{"a": "ok_share"}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.yaml, err, c.want)
		}
	}
}

// The real template's window is its query's range selector, its result a
// vector.
func TestArgoRealTemplate(t *testing.T) {
	data := mustRead(t, "testdata/gate/argo/appmesh-canary-rollout.yaml")
	ms, err := readArgo(GateOptions{File: "f", Data: data, Metrics: map[string]string{"success-rate": "ok_share"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Window != 5*time.Minute || !ms[0].Vector || ms[0].FailureLimit != 3 || ms[0].Interval != 5*time.Minute {
		t.Fatalf("%+v", ms)
	}
}

// An interval of 0 would measure without end: refused at its line.
func TestArgoZeroInterval(t *testing.T) {
	_, err := readArgo(GateOptions{File: "t.yaml", Data: []byte("kind: AnalysisTemplate\nspec:\n  metrics:\n  - name: a\n    interval: 0s\n"), Metrics: map[string]string{"a": "ok_share"}})
	if err == nil || !strings.HasPrefix(err.Error(), `t.yaml:4: field "interval": "0s"`) {
		t.Errorf("interval 0s: %v", err)
	}
}
