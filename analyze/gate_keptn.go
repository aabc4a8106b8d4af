package analyze

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/rewind-dev/rewind/hypothesis"
)

// keptnSLO is a Keptn slo.yaml, with the lighthouse service's defaults.
type keptnSLO struct {
	CompareWith, Include, Aggregate string
	Previous                        int // how many previous evaluations are read
	Objectives                      []keptnObjective
	Pass, Warning                   *big.Rat // total score percentages; Warning nil when absent
}

type keptnObjective struct {
	SLI, Display  string
	Pass, Warning [][]keptnCriterion // OR of AND sets
	Weight        int
	Key           bool
	Bound         string
}

// keptnCriterion is a parsed criteria string such as "<=+10%".
type keptnCriterion struct {
	Text       string
	Op         string
	Value      *big.Rat
	Percent    bool
	Comparison bool
	Increase   bool
}

func readKeptn(o GateOptions) (keptnSLO, error) {
	docs, err := yamlDocs(o.File, o.Data)
	if err != nil {
		return keptnSLO{}, err
	}
	if len(docs) == 0 {
		return keptnSLO{}, fmt.Errorf("%s: empty slo.yaml", o.File)
	}
	var y struct {
		Comparison *struct {
			CompareWith string `yaml:"compare_with"`
			Include     string `yaml:"include_result_with_score"`
			Number      int    `yaml:"number_of_comparison_results"`
			Aggregate   string `yaml:"aggregate_function"`
		} `yaml:"comparison"`
		Objectives []yaml.Node `yaml:"objectives"`
		TotalScore *struct {
			Pass    string `yaml:"pass"`
			Warning string `yaml:"warning"`
		} `yaml:"total_score"`
	}
	if err := decodeAt(o.File, docs[0], &y); err != nil {
		return keptnSLO{}, err
	}
	// parseSLO's defaults, and processGetSliFinishedEvent's count of
	// previous results (3 unless compare_with says otherwise).
	s := keptnSLO{CompareWith: "single_result", Include: "all", Aggregate: "avg", Previous: 1}
	if c := y.Comparison; c != nil {
		s.CompareWith, s.Include, s.Aggregate, s.Previous = c.CompareWith, strings.ToLower(c.Include), c.Aggregate, 3
		if s.Include == "" {
			s.Include = "all"
		}
		if s.Aggregate == "" {
			s.Aggregate = "avg"
		}
		switch c.CompareWith {
		case "single_result":
			s.Previous = 1
		case "several_results":
			s.Previous = c.Number
			if s.Previous == 0 {
				s.Previous = 3
			}
		}
	}
	if y.TotalScore == nil || y.TotalScore.Pass == "" {
		return s, fmt.Errorf("%s: no total_score.pass: Keptn refuses the evaluation (no target score defined)", o.File)
	}
	var ok bool
	if s.Pass, ok = exactNumber(strings.TrimSuffix(y.TotalScore.Pass, "%")); !ok {
		return s, fmt.Errorf("%s: total_score.pass %q: could not parse pass target percentage", o.File, y.TotalScore.Pass)
	}
	if w := y.TotalScore.Warning; w != "" {
		if s.Warning, ok = exactNumber(strings.TrimSuffix(w, "%")); !ok {
			return s, fmt.Errorf("%s: total_score.warning %q: could not parse warning target percentage", o.File, w)
		}
	}
	for i := range y.Objectives {
		obj, err := keptnObjectiveAt(o, &y.Objectives[i], i)
		if err != nil {
			return s, err
		}
		s.Objectives = append(s.Objectives, obj)
	}
	return s, nil
}

func keptnObjectiveAt(o GateOptions, n *yaml.Node, i int) (keptnObjective, error) {
	type set struct {
		Criteria []string `yaml:"criteria"`
	}
	var y struct {
		SLI         string `yaml:"sli"`
		DisplayName string `yaml:"displayName"`
		Pass        []set  `yaml:"pass"`
		Warning     []set  `yaml:"warning"`
		Weight      int    `yaml:"weight"`
		KeySLI      bool   `yaml:"key_sli"`
	}
	if err := decodePath(o.File, n, fmt.Sprintf("objectives[%d]", i), &y); err != nil {
		return keptnObjective{}, err
	}
	obj := keptnObjective{SLI: y.SLI, Display: y.DisplayName, Weight: y.Weight, Key: y.KeySLI}
	if obj.Weight < 0 {
		return obj, lineErr(o.File, n, "objective %q: weight %d: want a weight of 0 (meaning 1) or more", y.SLI, y.Weight)
	}
	if obj.Weight == 0 {
		obj.Weight = 1
	}
	for _, p := range []struct {
		sets []set
		dst  *[][]keptnCriterion
	}{{y.Pass, &obj.Pass}, {y.Warning, &obj.Warning}} {
		for _, st := range p.sets {
			var and []keptnCriterion
			for _, c := range st.Criteria {
				k, err := parseKeptnCriterion(c)
				if err != nil {
					return obj, lineErr(o.File, n, "sli %q: criteria %q: %v", obj.SLI, c, err)
				}
				and = append(and, k)
			}
			*p.dst = append(*p.dst, and)
		}
	}
	if len(obj.Pass) == 0 && len(obj.Warning) == 0 {
		return obj, nil // informational: fetched, never scored
	}
	b, err := bindMetric(o, obj.SLI, "Keptn SLI")
	if err != nil {
		return obj, lineErr(o.File, n, "%w", err)
	}
	obj.Bound = b
	return obj, nil
}

var keptnCriteriaRE = regexp.MustCompile(`^([<|<=|=|>|>=]{1,2})([+|-]{0,1}\d*\.?\d*)([%]{0,1})`)

// parseKeptnCriterion is lighthouse's parseCriteriaString: spaces removed,
// the operator, a % (always a relative comparison, an increase unless
// signed -), a sign (a comparison with the previous results), the value.
func parseKeptnCriterion(s string) (keptnCriterion, error) {
	c := keptnCriterion{Text: s}
	s = strings.ReplaceAll(s, " ", "")
	if !keptnCriteriaRE.MatchString(s) {
		return c, fmt.Errorf("invalid criteria string")
	}
	for _, op := range []string{"<=", "<", "=", ">=", ">"} {
		if strings.HasPrefix(s, op) {
			c.Op, s = op, strings.TrimPrefix(s, op)
			break
		}
	}
	if strings.HasSuffix(s, "%") {
		c.Percent, c.Comparison, c.Increase = true, true, true
		s = strings.TrimSuffix(s, "%")
	}
	if strings.HasPrefix(s, "-") {
		c.Comparison, c.Increase, s = true, false, s[1:]
	} else if strings.HasPrefix(s, "+") {
		c.Comparison, c.Increase, s = true, true, s[1:]
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return c, fmt.Errorf("could not parse criteria target value")
	}
	var ok bool
	if c.Value, ok = new(big.Rat).SetString(s); !ok {
		return c, fmt.Errorf("criteria target value %q is not a finite number", s)
	}
	return c, nil
}

// keptnEval is one evaluation: its result and each SLI's value.
type keptnEval struct {
	result string
	values map[string]*big.Rat // SLI → value, absent when not measured
}

// replayKeptn evaluates the slo.yaml over consecutive windows of --every
// from the start; each evaluation compares with the earlier ones, as
// Keptn compares with the previous evaluations of the service.
func replayKeptn(src *gateSource, o GateOptions, end float64, out *Result) (gateDecision, error) {
	slo, err := readKeptn(o)
	if err != nil {
		return gateDecision{}, err
	}
	every := o.Every
	if every <= 0 {
		every = time.Minute
	}
	if err := src.checkSpan(o, msOf(every), end, "{every} %s", every.String()); err != nil {
		return gateDecision{}, err
	}
	var ws []gateWindow
	for t := msOf(o.Start); t < end; t += msOf(every) {
		ws = append(ws, gateWindow{t, math.Min(t+msOf(every), end)})
	}
	if len(ws) == 0 {
		return gateDecision{}, fmt.Errorf("no evaluation window: the replay starts at %s ms, at or after its end %s ms", hypothesis.TrimFloat(msOf(o.Start)), hypothesis.TrimFloat(end))
	}
	if err := src.fetch(ws); err != nil {
		return gateDecision{}, err
	}
	var done []keptnEval
	for k, w := range ws {
		e, score, msg := slo.evaluate(src.cache[w], w, slo.previous(done), k+1, out)
		out.Rows = append(out.Rows, []any{int64(k + 1), w.until, "total_score", w.from, w.until, src.cache[w].requests, score, e.result, msg})
		if e.result == "fail" {
			return gateDecision{decision: "fail", at: w.until, evals: k + 1, reason: msg}, nil
		}
		done = append(done, e)
	}
	return gateDecision{decision: done[len(done)-1].result, at: math.NaN(), evals: len(ws), reason: "no evaluation failed"}, nil
}

// previous are the evaluations Keptn compares with: the newest first,
// those include_result_with_score admits, at most Previous of them.
func (s keptnSLO) previous(done []keptnEval) []keptnEval {
	var out []keptnEval
	for i := len(done) - 1; i >= 0 && len(out) < s.Previous; i-- {
		r := done[i].result
		if s.Include == "pass" && r != "pass" || s.Include == "pass_or_warn" && r != "pass" && r != "warning" {
			continue
		}
		out = append(out, done[i])
	}
	return out
}

// evaluate is evaluateObjectives and calculateScore, in exact arithmetic.
func (s keptnSLO) evaluate(v gateValues, w gateWindow, prev []keptnEval, k int, out *Result) (keptnEval, float64, string) {
	e := keptnEval{values: map[string]*big.Rat{}}
	maxScore, total := new(big.Rat), new(big.Rat)
	keyFailed, keyMsg := "", ""
	for _, obj := range s.Objectives {
		if obj.Bound == "" {
			out.Rows = append(out.Rows, []any{int64(k), w.until, obj.SLI, w.from, w.until, v.requests, nil, "info", "no rewind metric bound: not evaluated"})
			continue
		}
		value, ok := v.value(obj.Bound, w)
		if ok {
			e.values[obj.SLI] = value
		}
		if len(obj.Pass) == 0 {
			out.Rows = append(out.Rows, gateRow(k, w.until, obj.SLI, w, v, value, "info", "no pass criteria: not scored"))
			continue
		}
		maxScore.Add(maxScore, big.NewRat(int64(obj.Weight), 1))
		status, score, detail := "fail", new(big.Rat), "no value: the window has no data"
		if ok {
			status, score, detail = obj.score(value, s.aggregate(prev, obj.SLI))
		}
		if status == "fail" && obj.Key {
			keyFailed, keyMsg = obj.name(), detail
		}
		total.Add(total, score)
		out.Rows = append(out.Rows, gateRow(k, w.until, obj.SLI, w, v, value, status, detail))
	}
	if maxScore.Sign() == 0 {
		e.result = "pass"
		return e, 100, "no objective with pass criteria"
	}
	pct := new(big.Rat).Quo(new(big.Rat).Mul(total, big.NewRat(100, 1)), maxScore)
	f, _ := pct.Float64()
	switch {
	case pct.Cmp(s.Pass) >= 0 && keyFailed == "":
		e.result = "pass"
		return e, f, fmt.Sprintf("score %s >= pass %s", ratText(pct), ratText(s.Pass))
	case s.Warning != nil && keyFailed == "":
		if pct.Cmp(s.Warning) >= 0 {
			e.result = "warning"
			return e, f, fmt.Sprintf("score %s >= warning %s", ratText(pct), ratText(s.Warning))
		}
		e.result = "fail"
		return e, f, fmt.Sprintf("score %s below the warning value %s", ratText(pct), ratText(s.Warning))
	case keyFailed != "":
		e.result = "fail"
		return e, f, fmt.Sprintf("key_sli objective '%s' failed: %s", keyFailed, keyMsg)
	}
	e.result = "fail"
	return e, f, fmt.Sprintf("score %s below the target value %s", ratText(pct), ratText(s.Pass))
}

func (o keptnObjective) name() string {
	if o.Display != "" {
		return o.Display
	}
	return o.SLI
}

// score is an objective's status: pass (its weight), warning (half), fail.
func (o keptnObjective) score(v *big.Rat, agg *big.Rat) (string, *big.Rat, string) {
	passed, pd := anyCriteria(o.Pass, v, agg)
	warned, wd := len(o.Warning) > 0, ""
	if warned {
		warned, wd = anyCriteria(o.Warning, v, agg)
	}
	w := big.NewRat(int64(o.Weight), 1)
	switch {
	case passed:
		return "pass", w, pd
	case warned:
		return "warning", new(big.Rat).Mul(w, big.NewRat(1, 2)), "pass: " + pd + "; warning: " + wd
	}
	if wd != "" {
		pd += "; warning: " + wd
	}
	return "fail", new(big.Rat), pd
}

// anyCriteria is evaluateOrCombinedCriteria: one satisfied AND set
// suffices. agg is nil without previous values: comparisons then pass.
func anyCriteria(sets [][]keptnCriterion, v, agg *big.Rat) (bool, string) {
	ok := false
	var parts []string
	for _, set := range sets {
		all := true
		for _, c := range set {
			sat, target := c.holds(v, agg)
			mark := "ok"
			if !sat {
				mark, all = "violated", false
			}
			parts = append(parts, fmt.Sprintf("%s (target %s) %s", c.Text, target, mark))
		}
		ok = ok || all
	}
	return ok, strings.Join(parts, ", ")
}

func (c keptnCriterion) holds(v, agg *big.Rat) (bool, string) {
	target := c.Value
	if c.Comparison {
		if agg == nil {
			return true, "none: no previous result"
		}
		hundred := big.NewRat(100, 1)
		switch {
		case c.Percent && c.Increase:
			target = new(big.Rat).Quo(new(big.Rat).Mul(agg, new(big.Rat).Add(hundred, c.Value)), hundred)
		case c.Percent:
			target = new(big.Rat).Quo(new(big.Rat).Mul(agg, new(big.Rat).Sub(hundred, c.Value)), hundred)
		case c.Increase:
			target = new(big.Rat).Add(agg, c.Value)
		default:
			target = new(big.Rat).Sub(agg, c.Value)
		}
	}
	cmp := v.Cmp(target)
	sat := map[string]bool{"<": cmp < 0, "<=": cmp <= 0, "=": cmp == 0, ">=": cmp >= 0, ">": cmp > 0}[c.Op]
	return sat, ratText(target)
}

// aggregate is aggregateValues over the SLI's previous values (those
// measured); nil when there are none.
func (s keptnSLO) aggregate(prev []keptnEval, sli string) *big.Rat {
	var vals []*big.Rat
	for _, e := range prev {
		if v, ok := e.values[sli]; ok {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	switch s.Aggregate {
	case "avg":
		sum := new(big.Rat)
		for _, v := range vals {
			sum.Add(sum, v)
		}
		return sum.Quo(sum, big.NewRat(int64(len(vals)), 1))
	case "p50":
		return keptnPercentile(vals, big.NewRat(1, 2))
	case "p90":
		return keptnPercentile(vals, big.NewRat(9, 10))
	case "p95":
		return keptnPercentile(vals, big.NewRat(19, 20))
	}
	return new(big.Rat) // an unknown function leaves lighthouse's aggregate at 0
}

// keptnPercentile is lighthouse's calculatePercentile: position p·(n+1),
// linear between neighbours, clamped to the ends.
func keptnPercentile(vals []*big.Rat, p *big.Rat) *big.Rat {
	vals = slices.Clone(vals)
	slices.SortFunc(vals, func(a, b *big.Rat) int { return a.Cmp(b) })
	n := len(vals)
	pos := new(big.Rat).Mul(p, big.NewRat(int64(n+1), 1))
	if pos.Cmp(big.NewRat(1, 1)) < 0 {
		return vals[0]
	}
	if pos.Cmp(big.NewRat(int64(n), 1)) >= 0 {
		return vals[n-1]
	}
	i := new(big.Int).Quo(pos.Num(), pos.Denom()).Int64()
	frac := new(big.Rat).Sub(pos, big.NewRat(i, 1))
	lower, upper := vals[i-1], vals[i]
	return new(big.Rat).Add(lower, new(big.Rat).Mul(frac, new(big.Rat).Sub(upper, lower)))
}
