package analyze

import (
	"math/big"
	"os"
	"strings"
	"testing"
	"time"
)

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func num(s string) numberNode { return numberNode{set: true, text: s} }

// Ties at the threshold are decided exactly: a success rate of exactly 99 %
// passes min 99, 98.99 % fails; request-duration compares whole ms, so a
// p99 of 500.999 ms passes max 500, 501 ms fails, and a max of 500.5 ms
// is 500 ms (time.Duration truncates).
func TestFlaggerCheckTies(t *testing.T) {
	sr := flaggerMetric{Name: "request-success-rate", Min: num("99"), Bound: "ok_percent"}
	if why := sr.check(big.NewRat(99, 1)); why != "" {
		t.Errorf("99 vs min 99: %s", why)
	}
	if why := sr.check(big.NewRat(9899, 100)); why != "98.99 < min 99" {
		t.Errorf("98.99 vs min 99: %q", why)
	}
	rd := flaggerMetric{Name: "request-duration", Max: num("500"), Bound: "p99"}
	if why := rd.check(big.NewRat(500999, 1000)); why != "" {
		t.Errorf("500.999 ms vs max 500: %s", why)
	}
	if why := rd.check(big.NewRat(501, 1)); why != "501 > max 500" {
		t.Errorf("501 ms vs max 500: %q", why)
	}
	rd.Max = num("500.5")
	if why := rd.check(big.NewRat(501, 1)); why != "501 > max 500.5" {
		t.Errorf("501 ms vs max 500.5 (500 ms): %q", why)
	}
	rd = flaggerMetric{Name: "request-duration", Min: num("500.5"), Bound: "p99"}
	if why := rd.check(big.NewRat(5009, 10)); why != "" {
		t.Errorf("500.9 ms (500 ms) vs min 500.5 (500 ms): %q", why)
	}
	legacy := flaggerMetric{Name: "request-success-rate", Threshold: num("99"), Bound: "ok_percent"}
	if why := legacy.check(big.NewRat(98, 1)); why != "98 < threshold 99" {
		t.Errorf("deprecated threshold: %q", why)
	}
}

// replayFlaggerWith runs the Flagger loop over values from f.
func replayFlaggerWith(t *testing.T, c flaggerCanary, end float64, f func(w gateWindow) gateValues) (gateDecision, *Result) {
	t.Helper()
	src := &gateSource{cache: map[gateWindow]gateValues{}}
	for ts := 0.0; ts <= end; ts += msOf(c.Interval) {
		for _, m := range c.Metrics {
			w := gateWindow{ts - msOf(m.Window), ts}
			src.cache[w] = f(w)
		}
	}
	out := &Result{}
	d, err := flaggerLoop(c, src.cache, 0, end, out)
	if err != nil {
		t.Fatal(err)
	}
	return d, out
}

func flaggerTestCanary() flaggerCanary {
	return flaggerCanary{Interval: 10 * time.Second, Threshold: 2, MaxWeight: 50, StepWeight: 10,
		Metrics: []flaggerMetric{{Name: "request-success-rate", Min: num("99"), Window: 10 * time.Second, Bound: "ok_percent"}}}
}

// stepWeight 10 to maxWeight 50: no check at the first tick, five passing
// checks raise the weight to 50, the sixth tick's check passes and promotes.
func TestFlaggerPromotes(t *testing.T) {
	d, out := replayFlaggerWith(t, flaggerTestCanary(), 600000, func(gateWindow) gateValues { return okShare(100, 100) })
	if d.decision != "promote" || d.at != 50000 || d.evals != 6 || len(out.Rows) != 6 {
		t.Fatalf("got %+v with %d rows, want promote at 50000 (tick 6)", d, len(out.Rows))
	}
}

// failedChecks reaching the threshold rolls back at the next tick, before
// any check; a failed check does not advance the weight.
func TestFlaggerRollsBack(t *testing.T) {
	d, out := replayFlaggerWith(t, flaggerTestCanary(), 600000, func(w gateWindow) gateValues {
		if w.until >= 20000 {
			return okShare(98, 100)
		}
		return okShare(100, 100)
	})
	if d.decision != "rollback" || d.at != 40000 {
		t.Fatalf("got %+v, want rollback at 40000", d)
	}
	if last := out.Rows[len(out.Rows)-1]; last[8] != "weight=20 iterations=0 failedChecks=2" {
		t.Errorf("last check's state %v", last[8])
	}
}

// No traffic in a check's window: "no values found", a failed check.
func TestFlaggerNoValues(t *testing.T) {
	d, _ := replayFlaggerWith(t, flaggerTestCanary(), 600000, func(gateWindow) gateValues { return okShare(0, 0) })
	if d.decision != "rollback" || d.at != 30000 {
		t.Fatalf("got %+v, want rollback at 30000", d)
	}
}

// Blue/green with 3 iterations: checks at ticks 2 to 5, promotion at 5;
// A/B testing with 3: checks at ticks 2 to 4, promotion at 4.
func TestFlaggerIterations(t *testing.T) {
	c := flaggerTestCanary()
	c.StepWeight, c.MaxWeight, c.Iterations = 0, 0, 3
	d, _ := replayFlaggerWith(t, c, 600000, func(gateWindow) gateValues { return okShare(1, 1) })
	if d.decision != "promote" || d.evals != 5 {
		t.Errorf("blue/green: %+v, want promote at tick 5", d)
	}
	c.Match = true
	d, _ = replayFlaggerWith(t, c, 600000, func(gateWindow) gateValues { return okShare(1, 1) })
	if d.decision != "promote" || d.evals != 4 {
		t.Errorf("A/B: %+v, want promote at tick 4", d)
	}
}

func TestFlaggerRealCanary(t *testing.T) {
	c, err := readFlagger(GateOptions{File: "f", Data: mustRead(t, "testdata/gate/flagger/istio-canary.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	if c.Interval != 15*time.Second || c.Threshold != 10 || c.maxWeight() != 50 || c.StepWeight != 5 || len(c.Metrics) != 2 ||
		c.Metrics[1].Window != 30*time.Second || c.Metrics[1].Bound != "p99" || c.strategy() != "canary" {
		t.Fatalf("%+v", c)
	}
	ab, err := readFlagger(GateOptions{File: "f", Data: mustRead(t, "testdata/gate/flagger/istio-abtest.yaml")})
	if err != nil || ab.strategy() != "ab" {
		t.Fatalf("%+v %v", ab, err)
	}
	_, err = readFlagger(GateOptions{File: "f.yaml", Data: []byte("kind: Canary\nspec:\n  analysis:\n    stepWeight: 5\n    metrics:\n    - name: latency\n      query: x\n")})
	if err == nil || !strings.HasPrefix(err.Error(), "f.yaml:6: Flagger metric \"latency\" has no rewind metric") {
		t.Errorf("unbound query: %v", err)
	}
}
