package analyze

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// JudgeOptions steer Judge: Kayenta's NetflixACAJudge over the per-step
// arrays of queries/judge.sql.
type JudgeOptions struct {
	Experiment string
	Step       time.Duration // duration steps (default 60 s, Kayenta's step)
	StepN      int64         // count steps: requests per step; wins over Step
	Metrics    []MetricJudge // default: DefaultJudgeMetrics
	Weights    map[string]float64
	Pass       float64 // summary score at or above: Pass (default 95)
	Marginal   float64 // at or above: Marginal, else Fail (default 75)
	// Intervals: with Interval > 0, judgements at Warmup + k·Interval,
	// each over the steps from Warmup (a growing window) or, with
	// Lookback > 0, over the last Lookback. Multiples of Step.
	Interval, Warmup, Lookback time.Duration
	By                         []string // fields whose values split each side into groups (docs/by.md)
	// Confidence is the Mann-Whitney interval's level, between 0 and 1
	// (0: Kayenta's 0.98).
	Confidence float64
}

// Kayenta's MannWhitneyClassifier parameters in NetflixACAJudge.
const (
	judgeTolerance  = 0.25
	judgeConfidence = 0.98
)

// DefaultJudgeMetrics are judged when none are named: latency in the group
// latency, the error rate in errors.
func DefaultJudgeMetrics() []MetricJudge {
	var out []MetricJudge
	for _, m := range []string{"mean", "p50", "p95", "p99", "error_rate"} {
		out = append(out, DefaultMetricJudge(m, JudgeGroup(m)))
	}
	return out
}

// JudgeGroup is a metric's default group.
func JudgeGroup(metric string) string {
	switch metric {
	case "error_rate", "ok_share":
		return "errors"
	case "throughput":
		return "throughput"
	}
	return "latency"
}

// judgeUnits stay here: the scores are computed in Go, not by a macro.
var judgeUnits = map[string]string{
	"from_ms": "ms", "until_ms": "ms", "control_n": "steps", "experiment_n": "steps",
}

// judgeArrays are one metric's steps: start (ms, NaN for count steps) and
// value per side, in step order.
type judgeArrays struct {
	start, value map[string][]float64
}

// Judge classifies every metric at every interval and scores each
// interval; it returns the metrics' rows and the intervals' scores.
func Judge(db store.Querier, o JudgeOptions) (metrics, scores *Result, err error) {
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, nil, err
	}
	o = o.withDefaults()
	if err := o.checkMetrics(); err != nil {
		return nil, nil, err
	}
	if err := o.checkSteps(db, e.Name); err != nil {
		return nil, nil, err
	}
	if o.StepN > 0 || o.Step < 10*time.Second { // the steps that write rows out (_judge_steps)
		if err := checkExpansion(db, e.Name, "judge"); err != nil {
			return nil, nil, err
		}
	}
	g, err := groupBy(db, e.Name, o.By)
	if err != nil {
		return nil, nil, err
	}
	groups, fields, err := judgeSteps(db, e.Name, o, g)
	if err != nil {
		return nil, nil, err
	}
	return judgeGroups(o, e.Name, groups, fields)
}

// judgeGroups judges each group's arrays (one group without --by): the
// metrics' rows and the intervals' scores.
func judgeGroups(o JudgeOptions, exp string, groups []judgeGroup, fields []Column) (metrics, scores *Result, err error) {
	metrics = &Result{Name: "judge", Columns: append(slices.Clone(fields), judgeMetricColumns()...)}
	scores = &Result{Name: "judge scores", Columns: append(slices.Clone(fields), judgeScoreColumns()...)}
	if len(groups) == 0 { // no row with a role: the error below (with --by too: no group to note)
		groups = []judgeGroup{{arrays: map[string]judgeArrays{}}}
	}
	for _, grp := range groups {
		if role := missingRole(grp.arrays); role != "" && len(fields) > 0 && len(grp.vals) > 0 {
			// a group of one side only is not judged, and says so
			scores.Notes = append(scores.Notes, param.Textf("%s: not judged: it has no %s request%s", groupText(fields, grp.vals), role,
				map[bool]string{true: "", false: " with t_ms"}[o.StepN > 0]))
			continue
		}
		m, s, err := judgeOne(o, grp.arrays, exp)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range m.Rows {
			metrics.Rows = append(metrics.Rows, append(slices.Clone(grp.vals), r...))
		}
		for _, r := range s.Rows {
			scores.Rows = append(scores.Rows, append(slices.Clone(grp.vals), r...))
		}
		for _, n := range s.Notes {
			if len(fields) > 0 {
				n = param.Textf("%s: %w", groupText(fields, grp.vals), n)
			}
			scores.Notes = append(scores.Notes, n)
		}
	}
	return metrics, scores, nil
}

// judgeOne judges one log's arrays (a group's, with --by).
func judgeOne(o JudgeOptions, arrays map[string]judgeArrays, exp string) (metrics, scores *Result, err error) {
	if role := missingRole(arrays); role != "" {
		return nil, nil, param.Errorf("role", "experiment %q has no requests%s with role %s: the judge compares the runs with role control to those with role experiment (rewind ingest {role} RUN=control {role} RUN=experiment)",
			exp, map[bool]string{true: "", false: " with t_ms"}[o.StepN > 0], role)
	}
	ivs, err := o.intervals(arrays)
	if err != nil {
		return nil, nil, err
	}
	metrics = &Result{Name: "judge", Columns: judgeMetricColumns()}
	scores = &Result{Name: "judge scores", Columns: judgeScoreColumns()}
	for _, iv := range ivs {
		judged := judgeInterval(o, arrays, iv, metrics)
		s := scoreMetrics(judged, o.Weights, o.Pass, o.Marginal)
		scores.Rows = append(scores.Rows, scoreRow(iv, s))
	}
	scores.Notes = judgeNotes(scores, o)
	return metrics, scores, nil
}

func (o JudgeOptions) withDefaults() JudgeOptions {
	if o.StepN == 0 && o.Step == 0 {
		o.Step = time.Minute
	}
	if len(o.Metrics) == 0 {
		o.Metrics = DefaultJudgeMetrics()
	}
	if o.Pass == 0 && o.Marginal == 0 {
		o.Pass, o.Marginal = 95, 75
	}
	return o
}

// JudgeMetrics are the metrics queries/judge.sql computes.
var JudgeMetrics = []string{"mean", "p50", "p90", "p95", "p99", "p99.9", "max", "error_rate", "ok_share", "throughput"}

func (o JudgeOptions) checkMetrics() error {
	if c := o.Confidence; c != 0 && !(c > 0 && c < 1) {
		return param.Errorf("confidence", "{confidence} %g: want a level between 0 and 1, such as 0.95", c)
	}
	seen := map[string]bool{}
	for _, m := range o.Metrics {
		switch {
		case !slices.Contains(JudgeMetrics, m.Name):
			return fmt.Errorf("unknown metric %q: want one of %s", m.Name, strings.Join(JudgeMetrics, ", "))
		case seen[m.Name]:
			return fmt.Errorf("metric %q named twice", m.Name)
		case m.Name == "throughput" && o.StepN > 0:
			return param.Errorf("step", "metric throughput: requests per second need duration steps ({step}), not {step-requests}")
		}
		seen[m.Name] = true
	}
	return nil
}

// missingRole is the first side without a step, or "".
func missingRole(arrays map[string]judgeArrays) string {
	for _, role := range []string{"control", "experiment"} {
		if !hasRole(arrays, role) {
			return role
		}
	}
	return ""
}

func hasRole(arrays map[string]judgeArrays, role string) bool {
	for _, a := range arrays {
		if len(a.value[role]) > 0 {
			return true
		}
	}
	return false
}

// judgeGroup is one group's arrays and its fields' values (none without
// --by).
type judgeGroup struct {
	vals   []any
	arrays map[string]judgeArrays
}

// judgeSteps runs queries/judge.sql once for every metric; with a group,
// judge_by, whose rows come ordered by group. fields are the group's
// columns.
func judgeSteps(db store.Querier, exp string, o JudgeOptions, g grouping) ([]judgeGroup, []Column, error) {
	names := make([]string, len(o.Metrics))
	for i, m := range o.Metrics {
		names[i] = sqllit.String(m.Name)
	}
	step := "step_ms := " + sqllit.Ms(o.Step)
	if o.StepN > 0 {
		step = fmt.Sprintf("step_n := %d", o.StepN)
	}
	rows, err := db.Query(fmt.Sprintf(`SELECT %s FROM %s, %s, metrics := [%s])`,
		g.sel("metric, role, coalesce(start_ms, 'NaN'::DOUBLE), coalesce(value, 'NaN'::DOUBLE)"),
		g.call("judge"), step, strings.Join(names, ", ")), exp)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	var fields []Column
	for _, c := range cols[:len(cols)-4] {
		fields = append(fields, Column{Name: c})
	}
	var out []judgeGroup
	last := ""
	for rows.Next() {
		vals := make([]any, len(fields))
		var metric, role string
		var start, value float64
		dest := []any{}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := rows.Scan(append(dest, &metric, &role, &start, &value)...); err != nil {
			return nil, nil, err
		}
		if key := fmt.Sprintf("%#v", vals); len(out) == 0 || key != last {
			out, last = append(out, judgeGroup{vals: vals, arrays: map[string]judgeArrays{}}), key
		}
		arrays := out[len(out)-1].arrays
		a, ok := arrays[metric]
		if !ok {
			a = judgeArrays{start: map[string][]float64{}, value: map[string][]float64{}}
			arrays[metric] = a
		}
		a.start[role] = append(a.start[role], start)
		a.value[role] = append(a.value[role], value)
	}
	return out, fields, rows.Err()
}

// judgeInterval classifies every metric over the interval's steps,
// appending its rows, and returns what the scorer reads.
func judgeInterval(o JudgeOptions, arrays map[string]judgeArrays, iv judgeIv, out *Result) []judgedMetric {
	var judged []judgedMetric
	for _, m := range o.Metrics {
		a := arrays[m.Name]
		control := prepare(iv.pick(a.start["control"], a.value["control"]), m)
		experiment := prepare(iv.pick(a.start["experiment"], a.value["experiment"]), m)
		c := m.classifier()
		if o.Confidence > 0 {
			c.conf = o.Confidence
		}
		v := c.classify(control, experiment, m.Direction, m.ReplaceNaN, m.Critical, m.MustHaveData)
		judged = append(judged, judgedMetric{Name: m.Name, Groups: m.Groups, Label: v.Label, Reason: v.Reason, Critical: v.Critical, Muted: m.Muted})
		out.Rows = append(out.Rows, metricRow(iv, m, v, len(control), len(experiment)))
	}
	return judged
}

// classifier is the MannWhitneyClassifier NetflixACAJudge builds for the
// metric, with the effect-size thresholds its measure defaults to.
func (m MetricJudge) classifier() mwClassifier {
	def := 1.0
	if m.CLES {
		def = 0.5
	}
	or := func(v float64) float64 {
		if math.IsNaN(v) {
			return def
		}
		return v
	}
	return mwClassifier{tolerance: judgeTolerance, conf: judgeConfidence,
		allowed: [2]float64{or(m.AllowedDecrease), or(m.AllowedIncrease)},
		crit:    [2]float64{or(m.CriticalDecrease), or(m.CriticalIncrease)},
		cles:    m.CLES, experimentLabel: "Canary", controlLabel: "Baseline", experimentMetric: m.Name}
}

func judgeMetricColumns() []Column {
	return []Column{{"interval", ""}, {"metric", ""}, {"groups", ""}, {"classification", ""}, {"critical", ""},
		{"decided_by", ""}, {"control_n", "steps"}, {"experiment_n", "steps"}, {"lower", ""}, {"upper", ""},
		{"estimate", ""}, {"bound", ""}, {"effect_size", ""}, {"mean_ratio", ""}, {"reason", ""}}
}

func metricRow(iv judgeIv, m MetricJudge, v metricVerdict, nc, ne int) []any {
	num := func(f float64) any {
		if !v.Tested || math.IsNaN(f) {
			return nil
		}
		return f
	}
	var reason any
	if v.Reason != "" {
		reason = v.Reason
	}
	var ratio any
	if !math.IsNaN(v.Deviation) {
		ratio = v.Deviation
	}
	decided := v.DecidedBy
	if v.Degenerate {
		decided += " (both sides constant: interval [d, d])"
	}
	return []any{int64(iv.n), m.Name, strings.Join(m.Groups, ","), v.Label, v.Critical, decided, int64(nc), int64(ne),
		num(v.Lower), num(v.Upper), num(v.Estimate), num(v.Bound), num(v.EffectSize), ratio, reason}
}

func judgeScoreColumns() []Column {
	return []Column{{"interval", ""}, {"from_ms", "ms"}, {"until_ms", "ms"}, {"score", ""}, {"classification", ""},
		{"group_scores", ""}, {"reason", ""}}
}

func scoreRow(iv judgeIv, s judgeScore) []any {
	groups := make([]string, len(s.Groups))
	for i, g := range s.Groups {
		if g.NoData {
			groups[i] = g.Name + "=nodata"
			continue
		}
		groups[i] = g.Name + "=" + hypothesis.TrimFloat(g.Score)
	}
	var from, until, reason any
	if !math.IsNaN(iv.from) {
		from, until = iv.from, iv.until
	}
	if s.Reason != "" {
		reason = s.Reason
	}
	return []any{int64(iv.n), from, until, s.Score, s.Classification, strings.Join(groups, " "), reason}
}

// judgeNotes say at which interval the canary would first have failed.
func judgeNotes(scores *Result, o JudgeOptions) []*param.Error {
	if o.Interval == 0 {
		return nil
	}
	c := scores.Col("classification")
	for _, r := range scores.Rows {
		if r[c] == "Fail" {
			return []*param.Error{param.Textf("the canary would have failed at interval %d (until %v ms)", r[0], r[scores.Col("until_ms")])}
		}
	}
	return []*param.Error{param.Textf("no interval scores below {marginal} %s: the canary would not have failed", hypothesis.TrimFloat(o.Marginal))}
}
