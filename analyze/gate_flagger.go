package analyze

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// flaggerCanary is a Flagger Canary's spec.analysis.
type flaggerCanary struct {
	Interval              time.Duration
	Threshold             int
	MaxWeight, StepWeight int
	StepWeights           []int
	Iterations            int
	Match                 bool
	Metrics               []flaggerMetric
}

type flaggerMetric struct {
	Name      string
	Min, Max  numberNode
	Threshold numberNode // the deprecated single threshold
	Window    time.Duration
	Custom    bool   // a query or templateRef: bound with --metric
	Template  bool   // a templateRef: checked after the built-ins (runMetricChecks)
	Bound     string // the rewind metric
}

func readFlagger(o GateOptions) (flaggerCanary, error) {
	docs, err := yamlDocs(o.File, o.Data)
	if err != nil {
		return flaggerCanary{}, err
	}
	for _, doc := range docs {
		if kindOf(doc) != "Canary" {
			continue
		}
		var c struct {
			Spec struct {
				Analysis       yaml.Node `yaml:"analysis"`
				CanaryAnalysis yaml.Node `yaml:"canaryAnalysis"`
			} `yaml:"spec"`
		}
		if err := decodeAt(o.File, doc, &c); err != nil {
			return flaggerCanary{}, err
		}
		n := &c.Spec.Analysis
		if n.Kind == 0 {
			n = &c.Spec.CanaryAnalysis
		}
		if n.Kind == 0 {
			return flaggerCanary{}, lineErr(o.File, doc.Content[0], "Canary without spec.analysis: Flagger skips its analysis")
		}
		return flaggerAnalysis(o, n)
	}
	return flaggerCanary{}, fmt.Errorf("%s: no Canary (kind Canary, spec.analysis)", o.File)
}

func flaggerAnalysis(o GateOptions, n *yaml.Node) (flaggerCanary, error) {
	var a struct {
		Interval    string      `yaml:"interval"`
		Threshold   int         `yaml:"threshold"`
		MaxWeight   int         `yaml:"maxWeight"`
		StepWeight  int         `yaml:"stepWeight"`
		StepWeights []int       `yaml:"stepWeights"`
		Iterations  int         `yaml:"iterations"`
		Match       []yaml.Node `yaml:"match"`
		Metrics     []yaml.Node `yaml:"metrics"`
	}
	if err := decodeAt(o.File, n, &a); err != nil {
		return flaggerCanary{}, err
	}
	c := flaggerCanary{Interval: time.Minute, Threshold: a.Threshold, MaxWeight: a.MaxWeight, StepWeight: a.StepWeight,
		StepWeights: a.StepWeights, Iterations: a.Iterations, Match: len(a.Match) > 0}
	if a.Interval != "" {
		// GetAnalysisInterval: unparsable means the default, below 10 s means 10 s.
		if d, err := time.ParseDuration(a.Interval); err == nil {
			c.Interval = max(d, 10*time.Second)
		}
	}
	if c.Threshold <= 0 {
		c.Threshold = 1
	}
	for i := range a.Metrics {
		m, err := flaggerMetricAt(o, &a.Metrics[i], i)
		if err != nil {
			return c, err
		}
		c.Metrics = append(c.Metrics, m)
	}
	if c.StepWeight <= 0 && len(c.StepWeights) == 0 && c.Iterations <= 0 {
		return c, lineErr(o.File, n, "analysis: neither stepWeight, stepWeights nor iterations: the canary would never advance")
	}
	return c, nil
}

func flaggerMetricAt(o GateOptions, n *yaml.Node, i int) (flaggerMetric, error) {
	var y struct {
		Name           string     `yaml:"name"`
		Interval       string     `yaml:"interval"`
		Threshold      numberNode `yaml:"threshold"`
		ThresholdRange *struct {
			Min numberNode `yaml:"min"`
			Max numberNode `yaml:"max"`
		} `yaml:"thresholdRange"`
		Query       string    `yaml:"query"`
		TemplateRef yaml.Node `yaml:"templateRef"`
	}
	if err := decodePath(o.File, n, fmt.Sprintf("analysis.metrics[%d]", i), &y); err != nil {
		return flaggerMetric{}, err
	}
	m := flaggerMetric{Name: y.Name, Threshold: y.Threshold, Window: time.Minute, Template: y.TemplateRef.Kind != 0}
	if y.ThresholdRange != nil {
		m.Min, m.Max = y.ThresholdRange.Min, y.ThresholdRange.Max
	}
	if y.Interval != "" {
		d, err := promDuration(y.Interval)
		if err != nil || d <= 0 || !promRangeRE.MatchString("["+y.Interval+"]") {
			return m, lineErr(o.File, n, "metric %q: interval %q is not a Prometheus duration such as 1m", m.Name, y.Interval)
		}
		m.Window = d
	}
	switch {
	case m.Template || y.Query != "":
		m.Custom = true
		b, err := bindMetric(o, m.Name, "Flagger metric")
		if err != nil {
			return m, lineErr(o.File, n, "%w", err)
		}
		m.Bound = b
	case m.Name == "request-success-rate":
		m.Bound = "ok_percent"
	case m.Name == "request-duration":
		m.Bound = "p99"
	default:
		return m, lineErr(o.File, n, "metric %q: neither a built-in (request-success-rate, request-duration), a query nor a templateRef: Flagger fails every check on it", m.Name)
	}
	return m, nil
}

// flaggerState is the Canary's status: phase, weight, iterations, failed
// checks.
type flaggerState struct {
	weight, iterations, failed int
}

// maxWeight and nextStepWeight are Flagger's (pkg/controller/scheduler.go).
func (c flaggerCanary) maxWeight() int {
	if n := len(c.StepWeights); n > 0 {
		return min(100, c.StepWeights[n-1])
	}
	if c.MaxWeight > 0 {
		return c.MaxWeight
	}
	return 100
}

func (c flaggerCanary) nextStepWeight(w int) int {
	if c.StepWeight > 0 || len(c.StepWeights) == 0 {
		return c.StepWeight
	}
	maxStep := 100 - w
	if maxStep == 0 {
		return 1
	}
	if w == 0 {
		return min(maxStep, c.StepWeights[0])
	}
	for i := 0; i < len(c.StepWeights)-1; i++ {
		if c.StepWeights[i] == w {
			return min(maxStep, c.StepWeights[i+1]-w)
		}
	}
	return maxStep
}

func (c flaggerCanary) strategy() string {
	switch {
	case c.Match && c.Iterations > 0:
		return "ab"
	case c.Iterations > 0:
		return "bluegreen"
	}
	return "canary"
}

// replayFlagger runs advanceCanary once per interval from the start: the
// failed-checks threshold first (rollback), then the checks (the first
// tick, without traffic to the canary, runs none), then the strategy's
// step or the promotion.
func replayFlagger(src *gateSource, o GateOptions, end float64, out *Result) (gateDecision, error) {
	c, err := readFlagger(o)
	if err != nil {
		return gateDecision{}, err
	}
	start, step := msOf(o.Start), msOf(c.Interval)
	if err := src.checkSpan(o, step, end, "%s: the analysis interval %s", o.File, c.Interval.String()); err != nil {
		return gateDecision{}, err
	}
	var ws []gateWindow
	for t := start; t <= end; t += step {
		for _, m := range c.Metrics {
			ws = append(ws, gateWindow{t - msOf(m.Window), t})
		}
	}
	if err := src.fetch(ws); err != nil {
		return gateDecision{}, err
	}
	return flaggerLoop(c, src.cache, start, end, out)
}

func flaggerLoop(c flaggerCanary, cache map[gateWindow]gateValues, start, end float64, out *Result) (gateDecision, error) {
	step := msOf(c.Interval)
	var s flaggerState
	k := 1
	for t := start; t <= end; k, t = k+1, t+step {
		if s.failed >= c.Threshold {
			return gateDecision{decision: "rollback", at: t, evals: k,
				reason: fmt.Sprintf("failedChecks (%d) >= threshold (%d)", s.failed, c.Threshold)}, nil
		}
		if s.weight > 0 || s.iterations > 0 {
			if !flaggerChecks(c, cache, k, t, &s, out) {
				s.failed++
				continue
			}
		} else {
			out.Rows = append(out.Rows, []any{int64(k), t, nil, nil, nil, nil, nil, "start",
				"no traffic to the canary yet: no checks, the pre-rollout step"})
		}
		if c.advance(&s) {
			return gateDecision{decision: "promote", at: t, evals: k,
				reason: fmt.Sprintf("%s done: weight %d, iterations %d, failedChecks %d", c.strategy(), s.weight, s.iterations, s.failed)}, nil
		}
	}
	return gateDecision{decision: "progressing", at: math.NaN(), evals: k - 1, reason: fmt.Sprintf("weight %d, iterations %d, failedChecks %d", s.weight, s.iterations, s.failed)}, nil
}

// advance takes the strategy's step; true when it promotes.
func (c flaggerCanary) advance(s *flaggerState) bool {
	switch c.strategy() {
	case "ab":
		if c.Iterations > s.iterations {
			s.weight, s.iterations = 100, s.iterations+1
			return false
		}
		return true
	case "bluegreen":
		if c.Iterations >= s.iterations {
			s.iterations++
			return false
		}
		return true
	}
	next := c.nextStepWeight(s.weight)
	if next <= 0 {
		return false
	}
	if s.weight < c.maxWeight() {
		s.weight = min(100, s.weight+next)
		return false
	}
	return true
}

// flaggerChecks runs the checks in Flagger's order (the built-ins and
// inline queries, then the templates), stopping at the first that fails.
func flaggerChecks(c flaggerCanary, cache map[gateWindow]gateValues, k int, t float64, s *flaggerState, out *Result) bool {
	var order []flaggerMetric
	for _, pass := range []bool{false, true} {
		for _, m := range c.Metrics {
			if m.Template == pass {
				order = append(order, m)
			}
		}
	}
	for _, m := range order {
		w := gateWindow{t - msOf(m.Window), t}
		v := cache[w]
		value, ok := v.value(m.Bound, w)
		res := "pass"
		if !ok {
			res = "fail: no values found"
		} else if why := m.check(value); why != "" {
			res = "fail: " + why
		}
		failed := res != "pass"
		state := fmt.Sprintf("weight=%d iterations=%d failedChecks=%d", s.weight, s.iterations, s.failed+map[bool]int{true: 1}[failed])
		out.Rows = append(out.Rows, gateRow(k, t, m.Name, w, v, m.shown(value, ok), res, state))
		if failed {
			return false
		}
	}
	return true
}

// shown is the value as Flagger compares it: request-duration in whole
// milliseconds (the observers truncate Prometheus' value with int64).
func (m flaggerMetric) shown(v *big.Rat, ok bool) *big.Rat {
	if !ok || m.Custom || m.Name != "request-duration" {
		return v
	}
	return new(big.Rat).SetInt(new(big.Int).Quo(v.Num(), v.Denom()))
}

// check compares as Flagger: the range's min and max, else the deprecated
// threshold (a minimum for request-success-rate, a maximum otherwise).
// request-duration compares durations: its bounds become whole
// milliseconds (time.Duration(max) truncates the float).
func (m flaggerMetric) check(v *big.Rat) string {
	v = m.shown(v, true)
	bound := func(n numberNode) *big.Rat {
		r := n.rat()
		if m.Name == "request-duration" && !m.Custom {
			r = new(big.Rat).SetInt(new(big.Int).Quo(r.Num(), r.Denom()))
		}
		return r
	}
	val := ratText(v)
	switch {
	case m.Min.set && v.Cmp(bound(m.Min)) < 0:
		return fmt.Sprintf("%s < min %s", val, m.Min.text)
	case m.Max.set && v.Cmp(bound(m.Max)) > 0:
		return fmt.Sprintf("%s > max %s", val, m.Max.text)
	case m.Min.set || m.Max.set || !m.Threshold.set:
		return ""
	case m.Name == "request-success-rate" && !m.Custom && bound(m.Threshold).Cmp(v) > 0:
		return fmt.Sprintf("%s < threshold %s", val, m.Threshold.text)
	case (m.Name != "request-success-rate" || m.Custom) && v.Cmp(bound(m.Threshold)) > 0:
		return fmt.Sprintf("%s > threshold %s", val, m.Threshold.text)
	}
	return ""
}

// ratText writes an exact value: its decimal when it has one within 12
// places, else 6 places and an ellipsis.
func ratText(r *big.Rat) string {
	t := strings.TrimRight(strings.TrimRight(r.FloatString(12), "0"), ".")
	if t == "" || t == "-" {
		t = "0"
	}
	if mustRat(t).Cmp(r) == 0 {
		return t
	}
	return r.FloatString(6) + "…"
}

func mustRat(s string) *big.Rat { r, _ := new(big.Rat).SetString(s); return r }
