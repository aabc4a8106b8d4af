package analyze

import (
	"math/big"
	"strings"
	"testing"
)

// lighthouse's criteria strings: a % is always relative (an increase unless
// signed -), a sign makes an absolute comparison with the previous results.
func TestKeptnCriteria(t *testing.T) {
	for _, c := range []struct {
		s                       string
		op, value               string
		percent, comp, increase bool
	}{
		{"<=800", "<=", "800", false, false, false},
		{"<=+10%", "<=", "10", true, true, true},
		{"<=1%", "<=", "1", true, true, true},
		{">-8%", ">", "8", true, true, false},
		{"< +15", "<", "15", false, true, true},
		{"=0", "=", "0", false, false, false},
	} {
		k, err := parseKeptnCriterion(c.s)
		if err != nil || k.Op != c.op || k.Value.RatString() != c.value || k.Percent != c.percent || k.Comparison != c.comp || k.Increase != c.increase {
			t.Errorf("%q: %+v %v", c.s, k, err)
		}
	}
	for _, bad := range []string{"800", "~5", "<abc", "<=+"} {
		if _, err := parseKeptnCriterion(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func rat(s string) *big.Rat { r, _ := new(big.Rat).SetString(s); return r }

// A relative criterion's target is exact: 110 % of a previous 100 ms is
// 110, and 110 ms meets "<=+10%" (a float 100*1.1 would be 110.00000000000001).
func TestKeptnRelativeTie(t *testing.T) {
	c, _ := parseKeptnCriterion("<=+10%")
	if ok, target := c.holds(rat("110"), rat("100")); !ok || target != "110" {
		t.Errorf("110 vs <=+10%% of 100: %v, target %s", ok, target)
	}
	if ok, _ := c.holds(rat("110.001"), rat("100")); ok {
		t.Error("110.001 meets <=+10% of 100")
	}
	if ok, _ := c.holds(rat("1e9"), nil); !ok {
		t.Error("no previous result: a comparison must pass")
	}
}

func keptnTestSLO(yaml string, bind map[string]string) (keptnSLO, error) {
	return readKeptn(GateOptions{File: "slo.yaml", Data: []byte(yaml), Metrics: bind})
}

// Scores: pass counts the weight, warning half; a total exactly at the pass
// percentage passes; a failed key SLI fails whatever the score.
func TestKeptnScore(t *testing.T) {
	slo, err := keptnTestSLO(`
objectives:
  - sli: p95
    pass: [{criteria: ["<=100"]}]
    warning: [{criteria: ["<=200"]}]
  - sli: errors
    weight: 3
    key_sli: true
    pass: [{criteria: ["<=0.1"]}]
total_score: {pass: "87.5%", warning: "50%"}
`, map[string]string{"p95": "p95", "errors": "error_rate"})
	if err != nil {
		t.Fatal(err)
	}
	eval := func(p95us, bad int64) (string, float64) {
		v := gateValues{requests: 10, ok: 10 - bad, latN: 10, latSum: new(big.Int)}
		v.q[2].Int64, v.q[2].Valid = p95us, true
		e, score, _ := slo.evaluate(v, gateWindow{0, 1000}, nil, 1, &Result{})
		return e.result, score
	}
	if r, s := eval(150000, 1); r != "pass" || s != 87.5 {
		t.Errorf("warning p95 (0.5 of 1) + errors 0.1 (3 of 3) = 3.5/4: %s %v, want pass 87.5", r, s)
	}
	if r, s := eval(250000, 1); r != "warning" || s != 75 {
		t.Errorf("failed p95: %s %v, want warning 75", r, s)
	}
	if r, _ := eval(50000, 2); r != "fail" {
		t.Errorf("key SLI errors failed: %s, want fail", r)
	}
}

// Previous results: newest first, only those include_result_with_score
// admits, aggregated by aggregate_function.
func TestKeptnPrevious(t *testing.T) {
	s := keptnSLO{Include: "pass", Previous: 2, Aggregate: "avg"}
	done := []keptnEval{
		{result: "pass", values: map[string]*big.Rat{"x": rat("10")}},
		{result: "pass", values: map[string]*big.Rat{"x": rat("20")}},
		{result: "fail", values: map[string]*big.Rat{"x": rat("99")}},
		{result: "pass", values: map[string]*big.Rat{"x": rat("30")}},
	}
	if got := s.aggregate(s.previous(done), "x"); got.Cmp(rat("25")) != 0 {
		t.Errorf("avg of the two newest passes: %s, want 25", got.RatString())
	}
	s.Include, s.Previous, s.Aggregate = "all", 4, "p90"
	// position 0.9 * 5 = 4.5: between the 4th and 5th of 4 → the last.
	if got := s.aggregate(s.previous(done), "x"); got.Cmp(rat("99")) != 0 {
		t.Errorf("p90 of 4: %s, want 99", got.RatString())
	}
	s.Aggregate = "p50"
	if got := s.aggregate(s.previous(done), "x"); got.Cmp(rat("25")) != 0 {
		t.Errorf("p50 of 10 20 30 99 (position 2.5): %s, want 25", got.RatString())
	}
}

func TestKeptnRealFiles(t *testing.T) {
	slo, err := keptnTestSLO(string(mustRead(t, "testdata/gate/keptn/simplenode-slo-perftest.yaml")),
		map[string]string{"response_time_p95": "p95", "throughput": "throughput", "error_rate": "error_percent", "response_time_p90": "p90"})
	if err == nil || !strings.Contains(err.Error(), `slo.yaml:36: Keptn SLI "rt_test_invoke" has no rewind metric`) {
		t.Fatalf("unbound SLI: %v", err)
	}
	slo, err = keptnTestSLO(string(mustRead(t, "testdata/gate/keptn/lighthouse-slo.yaml")), map[string]string{"request_latency_p95": "p95", "error_rate": "error_rate"})
	if err != nil {
		t.Fatal(err)
	}
	if slo.Previous != 1 || slo.Include != "pass" || len(slo.Objectives) != 2 || slo.Objectives[1].Weight != 2 || slo.Pass.Cmp(rat("90")) != 0 {
		t.Fatalf("%+v", slo)
	}
}
