package hypothesis

import (
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// A hypothesis says which two sides are compared (two runs, or the parts of
// one run before and after a moment) and what each window is judged on (a
// metric and a threshold). The SQL macros side_windows, hypothesis_sweep and
// stop_damage are its definition; this file resolves the flags into their
// arguments.

// Metrics are the per-window statistics a hypothesis can judge.
var Metrics = []string{"ok_share", "error_rate", "p50", "p90", "p95", "p99", "p99.9", "max", "mean", "throughput"}

// MetricUnit is a metric's unit: share, ms or req/s ("" is ok_share).
func MetricUnit(metric string) string {
	switch metric {
	case "ok_share", "error_rate", "":
		return "share"
	case "throughput":
		return "req/s"
	}
	return "ms"
}

// LowerBad reports whether lower values of the metric break a hypothesis
// (ok share, throughput); for the others higher values do.
func LowerBad(metric string) bool { return metric == "ok_share" || metric == "throughput" }

// perUnit is how many exact units of a window value (value_num / value_den
// of side_windows) make one of the metric's unit: latency is exact in
// microseconds.
func perUnit(metric string) int64 {
	if MetricUnit(metric) == "ms" {
		return 1000
	}
	return 1
}

// CheckMetric accepts the names of Metrics.
func CheckMetric(metric string) error {
	if slices.Contains(Metrics, metric) {
		return nil
	}
	return fmt.Errorf("metric %q: want one of %s", metric, strings.Join(Metrics, ", "))
}

// Bound is one threshold of a hypothesis: threshold = F × baseline + A,
// with A in the metric's exact unit (shares, microseconds, requests per
// second). Kind is the flag it came from: margin, tolerance, max or min.
type Bound struct {
	Kind string
	Text string // as given, e.g. 0.05, 20%, 50ms, 250ms, 1%
	F, A *big.Rat
}

// Relative reports whether the threshold needs a baseline.
func (t Bound) Relative() bool { return t.F.Sign() != 0 }

// millionths returns F and A as whole millionths, the SQL's exact form.
func (t Bound) Millionths() (f, a *big.Int, err error) {
	m := big.NewRat(1000000, 1)
	fr, ar := new(big.Rat).Mul(t.F, m), new(big.Rat).Mul(t.A, m)
	if !fr.IsInt() || !ar.IsInt() {
		return nil, nil, param.Errorf(t.Kind, "{"+t.Kind+"} %s: too fine (shares and percentages to 6 decimals of a share, durations to the microsecond)", t.Text)
	}
	return fr.Num(), ar.Num(), nil
}

// SQL is the threshold as a hypothesis_sweep struct literal.
func (t Bound) SQL() (string, error) {
	f, a, err := t.Millionths()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("{'f': %s::HUGEINT, 'a': %s::HUGEINT}", f, a), nil
}

// Describe states the threshold exactly, e.g. "p95 > baseline × 1.2
// falsifies" or "error_rate > 1 % falsifies".
func (t Bound) Describe(metric string) string {
	op := ">"
	if LowerBad(metric) {
		op = "<"
	}
	unit := MetricUnit(metric)
	per := big.NewRat(perUnit(metric), 1)
	a := new(big.Rat).Quo(t.A, per)
	var rhs string
	switch {
	case !t.Relative():
		rhs = showValue(a, unit)
	case t.F.Cmp(big.NewRat(1, 1)) == 0 && a.Sign() == 0:
		rhs = "baseline"
	case t.F.Cmp(big.NewRat(1, 1)) == 0 && a.Sign() > 0:
		rhs = "baseline + " + showValue(a, unit)
	case t.F.Cmp(big.NewRat(1, 1)) == 0:
		rhs = "baseline − " + showValue(new(big.Rat).Neg(a), unit)
	default:
		rhs = "baseline × " + TrimRat(t.F)
	}
	return fmt.Sprintf("a window with %s %s %s falsifies", metric, op, rhs)
}

func showValue(r *big.Rat, unit string) string {
	switch unit {
	case "share":
		return TrimRat(new(big.Rat).Mul(r, big.NewRat(100, 1))) + " %"
	case "ms":
		return TrimRat(r) + " ms"
	}
	return TrimRat(r) + " req/s"
}

// TrimRat writes a rational in decimals (to 6 places), without trailing
// zeros.
func TrimRat(r *big.Rat) string {
	s := r.FloatString(6)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// ParseBound reads one threshold of a kind (margin, tolerance, max or
// min) for a metric:
//
//	margin     0.05 or 5%   shares only: baseline − margin (ok_share), + margin (error_rate)
//	tolerance  20%          baseline × 1.2 (× 0.8 where lower is bad)
//	           50ms, 5/s    baseline + 50 ms (− 5 req/s where lower is bad)
//	max        250ms, 1%    absolute, for metrics where higher is bad
//	min        99%, 100/s   absolute, for metrics where lower is bad
func ParseBound(kind, text, metric string) (Bound, error) {
	t := Bound{Kind: kind, Text: strings.TrimSpace(text)}
	bad := func(format string, a ...any) (Bound, error) {
		return t, param.Errorf(kind, "{"+kind+"} %q: "+format, append(append([]any(nil), text), a...)...)
	}
	sign := big.NewRat(1, 1)
	if LowerBad(metric) {
		sign = big.NewRat(-1, 1)
	}
	unit := MetricUnit(metric)
	switch kind {
	case "margin":
		if unit != "share" {
			abs := map[bool]string{true: "{min}", false: "{max}"}[LowerBad(metric)]
			return bad("a margin is for shares (ok_share, error_rate); %s takes {tolerance} (20%%, %s) or "+abs, metric, amountExample(unit))
		}
		m, ok := parseShareText(t.Text)
		if !ok || m.Sign() < 0 || m.Cmp(big.NewRat(1, 1)) >= 0 {
			return bad("want a share in [0, 1), e.g. 0.05 or 5%%")
		}
		t.F, t.A = big.NewRat(1, 1), new(big.Rat).Mul(sign, m)
	case "tolerance":
		if p, ok := strings.CutSuffix(t.Text, "%"); ok {
			r, ok := new(big.Rat).SetString(strings.TrimSpace(p))
			if !ok || r.Sign() < 0 || strings.ContainsAny(p, "eE") {
				return bad("want a percentage such as 20%%")
			}
			r.Quo(r, big.NewRat(100, 1))
			t.F, t.A = new(big.Rat).Add(big.NewRat(1, 1), r.Mul(r, sign)), new(big.Rat)
			break
		}
		v, err := parseAmount(t.Text, unit)
		if err != nil || v.Sign() < 0 {
			return bad("want a percentage (20%%) or an amount in %s (%s)%s", unit, amountExample(unit), finer(err))
		}
		t.F, t.A = big.NewRat(1, 1), v.Mul(v, sign)
	case "max", "min":
		if (kind == "max") == LowerBad(metric) {
			other := map[string]string{"max": "{min}", "min": "{max}"}[kind]
			worse := map[bool]string{true: "lower", false: "higher"}[LowerBad(metric)]
			return bad("%s is judged with "+other+" (%s %s is worse)", metric, worse, metric)
		}
		v, err := parseAmount(t.Text, unit)
		if err != nil || v.Sign() < 0 {
			return bad("want an amount in %s (%s)%s", unit, amountExample(unit), finer(err))
		}
		t.F, t.A = new(big.Rat), v
	default:
		return t, fmt.Errorf("threshold kind %q: want margin, tolerance, max or min", kind)
	}
	if _, _, err := t.Millionths(); err != nil {
		return t, err
	}
	return t, nil
}

// ParseAmount reads a value of the metric in its exact unit, as a window
// value is: a share (0.96 or 96%), a duration (230ms, read in
// microseconds) or requests per second (50/s).
func ParseAmount(s, metric string) (*big.Rat, error) {
	if metric == "" {
		metric = "ok_share"
	}
	unit := MetricUnit(metric)
	r, err := parseAmount(s, unit)
	if err != nil {
		return nil, fmt.Errorf("want an amount in %s (%s)", unit, amountExample(unit))
	}
	return r, nil
}

// errTooFine is a duration finer than the microsecond latencies are read in.
var errTooFine = errors.New("finer than a microsecond")

func finer(err error) string {
	if errors.Is(err, errTooFine) {
		return ", to the microsecond (latencies are read rounded to it)"
	}
	return ""
}

func amountExample(unit string) string {
	return map[string]string{"share": "1% or 0.01", "ms": "250ms, 1.5s", "req/s": "100/s"}[unit]
}

// parseAmount reads an amount in the metric's exact unit: a share (0.01 or
// 1%), a duration (in microseconds: 250ms is 250000) or requests per second
// (100/s or 100).
func parseAmount(s, unit string) (*big.Rat, error) {
	switch unit {
	case "share":
		if r, ok := parseShareText(s); ok {
			return r, nil
		}
	case "ms":
		d, err := time.ParseDuration(s)
		if err == nil && d%time.Microsecond != 0 {
			return nil, errTooFine
		}
		if err == nil {
			return big.NewRat(int64(d/time.Microsecond), 1), nil
		}
	default:
		t := strings.TrimSuffix(strings.TrimSpace(s), "/s")
		if r, ok := new(big.Rat).SetString(t); ok && !strings.ContainsAny(t, "eE") {
			return r, nil
		}
	}
	return nil, errors.New("bad amount")
}

// parseShareText reads 0.05 or 5% exactly.
func parseShareText(s string) (*big.Rat, bool) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	t = strings.TrimSpace(strings.TrimSuffix(t, "%"))
	r, ok := new(big.Rat).SetString(t)
	if !ok || strings.ContainsAny(t, "eE") {
		return nil, false
	}
	if pct {
		r.Quo(r, big.NewRat(100, 1))
	}
	return r, true
}

// Hypothesis names the sides. Empty fields take the defaults: the run with
// role control against the run with role experiment.
type Hypothesis struct {
	Control       string // RUN or EXPERIMENT/RUN: the baseline
	Treatment     string // RUN or EXPERIMENT/RUN
	BaselineUntil string // DURATION (2m) or EVENT (action_start, action_start:NAME): a time split of one run
	Metric        string // default ok_share
}

// IsDefault reports whether nothing was named.
func (h Hypothesis) IsDefault() bool {
	return h.Control == "" && h.Treatment == "" && h.BaselineUntil == "" && (h.Metric == "" || h.Metric == "ok_share")
}

// ExperimentIn is the experiment the hypothesis is judged in: name when
// given, else the one the treatment run (or, for a split, the named run)
// belongs to when only one experiment has a run of that name, else "" (the
// database's only experiment, or an AmbiguousError).
func (h Hypothesis) ExperimentIn(db store.Querier, name string) string {
	ref := h.Treatment
	if ref == "" && h.BaselineUntil != "" {
		ref = h.Control
	}
	if name != "" || ref == "" {
		return name
	}
	exps, err := store.QueryStrings(db, `SELECT DISTINCT experiment FROM runs WHERE run = ?
		UNION SELECT experiment FROM runs WHERE experiment || '/' || run = ?`, ref, ref)
	if err != nil {
		return ""
	}
	if len(exps) == 1 {
		return exps[0]
	}
	return ""
}

func (h Hypothesis) MetricOrDefault() string {
	if h.Metric == "" {
		return "ok_share"
	}
	return h.Metric
}

// Side is one side of a hypothesis: a run, or every run with a role.
type Side struct {
	Experiment, Run, Role string
	FromMs, UntilMs       *float64
}

func (s Side) String() string {
	var b string
	if s.Run != "" {
		b = "run " + s.Experiment + "/" + s.Run
	} else {
		b = "role " + s.Role + " of " + s.Experiment
	}
	switch {
	case s.UntilMs != nil:
		b += fmt.Sprintf(" before t = %s ms", TrimFloat(*s.UntilMs))
	case s.FromMs != nil:
		b += fmt.Sprintf(" from t = %s ms", TrimFloat(*s.FromMs))
	}
	return b
}

// WindowArgs are the side's named arguments of side_windows, each with a
// leading comma.
func (s Side) WindowArgs() string {
	a := ", role_name := " + sqllit.String(s.Role)
	if s.Run != "" {
		a = ", run_name := " + sqllit.String(s.Run)
	}
	if s.FromMs != nil {
		a += ", from_ms := " + TrimFloat(*s.FromMs) + "::DOUBLE"
	}
	if s.UntilMs != nil {
		a += ", until_ms := " + TrimFloat(*s.UntilMs) + "::DOUBLE"
	}
	return a
}

func TrimFloat(f float64) string { return TrimRat(new(big.Rat).SetFloat64(f)) }

// Sides is a resolved hypothesis.
type Sides struct {
	Metric             string
	Control, Treatment Side
	HasControl         bool   // the control side has rows
	Split              string // how the split was given, when there is one
}

// Args are the named macro arguments that select the sides and the metric,
// each with a leading comma.
func (s Sides) Args() string {
	var b strings.Builder
	fmt.Fprintf(&b, ", metric := %s", sqllit.String(s.Metric))
	side := func(prefix string, x Side) {
		fmt.Fprintf(&b, ", %s_exp := %s", prefix, sqllit.String(x.Experiment))
		if x.Run != "" {
			fmt.Fprintf(&b, ", %s_run := %s", prefix, sqllit.String(x.Run))
		} else {
			fmt.Fprintf(&b, ", %s_role := %s", prefix, sqllit.String(x.Role))
		}
	}
	side("control", s.Control)
	side("treatment", s.Treatment)
	if s.Treatment.FromMs != nil {
		fmt.Fprintf(&b, ", split_ms := %s::DOUBLE", TrimFloat(*s.Treatment.FromMs))
	}
	return b.String()
}

// SidesError is a hypothesis that does not fit the database, with the
// flags of a command that does (for a Try line).
type SidesError struct {
	Err *param.Error
	Try []param.Arg
}

func (e *SidesError) Error() string { return e.Err.Error() }
func (e *SidesError) Unwrap() error { return e.Err }

// runInfo is one run of an experiment, for messages.
type runInfo struct {
	Run, Role string
	Requests  int64
	SpanMs    sql.NullFloat64
}

func experimentRuns(db store.Querier, exp string) ([]runInfo, error) {
	rows, err := db.Query(`SELECT run, any_value(role), sum(count)::BIGINT, max(t_ms) - min(t_ms)
		FROM requests WHERE experiment = ? GROUP BY run ORDER BY run`, exp)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []runInfo
	for rows.Next() {
		var r runInfo
		if err := rows.Scan(&r.Run, &r.Role, &r.Requests, &r.SpanMs); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func listRuns(runs []runInfo) string {
	parts := make([]string, len(runs))
	for i, r := range runs {
		role := "role " + r.Role
		if r.Role == "" {
			role = "no role"
		}
		parts[i] = fmt.Sprintf("%s (%s, %s)", r.Run, role, Plural(r.Requests, "request"))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// ResolveSides turns a hypothesis into its sides in experiment e. absolute
// says the threshold needs no baseline: the control side may then be
// missing.
func ResolveSides(db store.Querier, e store.Experiment, h Hypothesis, absolute bool) (Sides, error) {
	return resolveSides(db, dbCounts{db}, e, h, absolute)
}

// rowCounts are what resolving the sides reads of requests: an
// experiment's runs with rows, and whether a side has a row.
type rowCounts interface {
	runs(exp string) ([]runInfo, error)
	rows(s Side) (int64, error)
	// noLatency names the side's runs with rows and no latency_ms
	// (noLatencyRuns)
	noLatency(s Side) ([]string, error)
	// weighted counts the side's rows with a latency that stand for
	// several requests (count > 1)
	weighted(s Side) (int64, error)
	// splitAt reads --baseline-until (splitMs)
	splitAt(exp, v string) (float64, string, error)
}

// dbCounts reads them from the database's requests.
type dbCounts struct{ db store.Querier }

func (c dbCounts) runs(exp string) ([]runInfo, error) { return experimentRuns(c.db, exp) }
func (c dbCounts) rows(s Side) (int64, error)         { return sideRequests(c.db, s) }

func (c dbCounts) splitAt(exp, v string) (float64, string, error) {
	return splitMs(exp, v, DBEvent(c.db))
}

func (c dbCounts) noLatency(s Side) ([]string, error) {
	where, args := s.where()
	return noLatencyRuns(c.db, where, args...)
}

func (c dbCounts) weighted(s Side) (int64, error) {
	where, args := s.where()
	var n int64
	err := c.db.QueryRow(`SELECT count(*) FROM requests WHERE count > 1 AND latency_ms IS NOT NULL AND `+where, args...).Scan(&n)
	return n, err
}

func resolveSides(db store.Querier, rc rowCounts, e store.Experiment, h Hypothesis, absolute bool) (Sides, error) {
	s := Sides{Metric: h.MetricOrDefault()}
	if err := CheckMetric(s.Metric); err != nil {
		return s, err
	}
	var err error
	if h.BaselineUntil != "" {
		if err := resolveSplit(db, rc, e, h, &s); err != nil {
			return s, err
		}
	} else {
		if s.Control, err = resolveSide(db, rc, e.Name, h.Control, "control"); err != nil {
			return s, err
		}
		if s.Treatment, err = defaultTreatment(db, rc, e.Name, h.Treatment); err != nil {
			return s, err
		}
	}
	if s.Control == s.Treatment && h.BaselineUntil == "" {
		return s, param.Errorf("control", "{control} and {treatment} name the same run (%s): compare two runs, or split one with {baseline-until}", s.Control)
	}
	n, err := rc.rows(s.Treatment)
	if err != nil {
		return s, err
	}
	c, err := rc.rows(s.Control)
	if err != nil {
		return s, err
	}
	s.HasControl = c > 0
	if n == 0 || (c == 0 && !absolute) {
		return s, sidesError(rc, e, h, s, n == 0)
	}
	if err := requireSidesLatency(rc, s); err != nil {
		return s, err
	}
	return s, checkWeights(rc, s)
}

// checkWeights refuses a latency quantile over rows that stand for several
// requests, naming the side (the SQL refuses it too, less plainly).
func checkWeights(rc rowCounts, s Sides) error {
	if s.Metric == "mean" || MetricUnit(s.Metric) != "ms" {
		return nil
	}
	for _, side := range []Side{s.Control, s.Treatment} {
		n, err := rc.weighted(side)
		if err != nil {
			return err
		}
		if n > 0 {
			return param.Errorf("metric", "metric %s: %s has %d rows that stand for several requests (count > 1, e.g. a Locust stats history); a latency quantile needs one row per request: use {metric} mean", s.Metric, side, n)
		}
	}
	return nil
}

// defaultTreatment is --treatment, else every run with role experiment,
// else the experiment's only run (a load-test log of one run, judged
// against an absolute threshold or another experiment's run).
func defaultTreatment(db store.Querier, rc rowCounts, exp, ref string) (Side, error) {
	s, err := resolveSide(db, rc, exp, ref, "experiment")
	if err != nil || ref != "" {
		return s, err
	}
	if n, err := rc.rows(s); err != nil || n > 0 {
		return s, err
	}
	runs, err := rc.runs(exp)
	if err != nil || len(runs) != 1 {
		return s, err
	}
	return Side{Experiment: exp, Run: runs[0].Run}, nil
}

// sidesError explains a side without rows: which runs there are, and a
// command that works.
func sidesError(rc rowCounts, e store.Experiment, h Hypothesis, s Sides, treatment bool) error {
	runs, err := rc.runs(e.Name)
	if err != nil {
		return err
	}
	return sidesErrorOf(runs, e, h, s, treatment)
}

func sidesErrorOf(runs []runInfo, e store.Experiment, h Hypothesis, s Sides, treatment bool) error {
	msg := param.Errorf("control", "experiment %q has no baseline: no run with role control (its runs: %s); name the baseline with {control} RUN (or EXPERIMENT/RUN), split a run with {baseline-until}, or judge an absolute threshold ({max}, {min})",
		e.Name, listRuns(runs))
	if s.Control.Run != "" {
		msg = param.Errorf("control", "experiment %q: the baseline, %s, has no requests; its runs: %s", e.Name, s.Control, listRuns(runs))
	}
	if treatment {
		msg = param.Errorf("treatment", "experiment %q: the treatment side, %s, has no requests; its runs: %s; name it with {treatment} RUN",
			e.Name, s.Treatment, listRuns(runs))
	}
	var try []param.Arg
	switch {
	case len(runs) >= 2:
		try = []param.Arg{{Param: "control", Value: runs[0].Run}, {Param: "treatment", Value: runs[1].Run}}
	case len(runs) == 1 && runs[0].SpanMs.Valid && runs[0].SpanMs.Float64 >= 4000:
		try = []param.Arg{{Param: "baseline-until", Value: roundDuration(runs[0].SpanMs.Float64 / 4)}}
	}
	if try != nil && h.Metric != "" && h.Metric != "ok_share" {
		try = append([]param.Arg{{Param: "metric", Value: h.Metric}}, try...)
	}
	return &SidesError{Err: msg, Try: try}
}

// roundDuration writes about ms as a short duration: whole seconds, or
// whole minutes from two minutes on.
func roundDuration(ms float64) string {
	d := time.Duration(ms) * time.Millisecond
	if d >= 2*time.Minute {
		return (d.Round(time.Minute)).String()
	}
	return max(d.Round(time.Second), time.Second).String()
}

// where is the side's filter over requests, with its arguments.
func (s Side) where() (string, []any) {
	q, args := "experiment = ? AND role = ?", []any{s.Experiment, s.Role}
	if s.Run != "" {
		q, args = "experiment = ? AND run = ?", []any{s.Experiment, s.Run}
	}
	if s.FromMs != nil {
		q += " AND t_ms >= ?"
		args = append(args, *s.FromMs)
	}
	if s.UntilMs != nil {
		q += " AND t_ms < ?"
		args = append(args, *s.UntilMs)
	}
	return q, args
}

// sideRequests is 1 when the side has a row, else 0: a scan that stops at
// the first.
func sideRequests(db store.Querier, s Side) (int64, error) {
	where, args := s.where()
	var n int64
	err := db.QueryRow(`SELECT count(*) FROM (SELECT 1 FROM requests WHERE `+where+` LIMIT 1)`, args...).Scan(&n)
	return n, err
}

// ResolveSide reads a --control or --treatment value: RUN of exp, or
// EXPERIMENT/RUN. Empty is every run with the default role.
func ResolveSide(db store.Querier, exp, ref, role string) (Side, error) {
	return resolveSide(db, dbCounts{db}, exp, ref, role)
}

func resolveSide(db store.Querier, rc rowCounts, exp, ref, role string) (Side, error) {
	if ref == "" {
		return Side{Experiment: exp, Role: role}, nil
	}
	if ok, err := runExists(db, exp, ref); err != nil || ok {
		return Side{Experiment: exp, Run: ref}, err
	}
	for i := len(ref) - 1; i > 0; i-- {
		if ref[i] != '/' {
			continue
		}
		if ok, err := runExists(db, ref[:i], ref[i+1:]); err != nil || ok {
			return Side{Experiment: ref[:i], Run: ref[i+1:]}, err
		}
	}
	runs, err := rc.runs(exp)
	if err != nil {
		return Side{}, err
	}
	return Side{}, fmt.Errorf("no run %q in experiment %q, nor EXPERIMENT/RUN in the database; the runs of %s: %s",
		ref, exp, exp, listRuns(runs))
}

func runExists(db store.Querier, exp, run string) (bool, error) {
	var n int64
	err := db.QueryRow(`SELECT count(*) FROM runs WHERE experiment = ? AND run = ?`, exp, run).Scan(&n)
	return n > 0, err
}

// resolveSplit makes the two parts of one run: before --baseline-until and
// from it.
func resolveSplit(db store.Querier, rc rowCounts, e store.Experiment, h Hypothesis, s *Sides) error {
	if h.Control != "" && h.Treatment != "" && h.Control != h.Treatment {
		return param.Errorf("baseline-until", "{baseline-until} splits one run: give it with {treatment} (or {control}), not two runs")
	}
	ref := h.Treatment
	if ref == "" {
		ref = h.Control
	}
	var side Side
	var err error
	switch runs, rerr := rc.runs(e.Name); {
	case rerr != nil:
		return rerr
	case ref != "":
		if side, err = resolveSide(db, rc, e.Name, ref, ""); err != nil {
			return err
		}
	case len(runs) == 1:
		side = Side{Experiment: e.Name, Run: runs[0].Run}
	case slices.ContainsFunc(runs, func(r runInfo) bool { return r.Role == "experiment" }):
		side = Side{Experiment: e.Name, Role: "experiment"}
	default:
		return &SidesError{
			Err: param.Errorf("baseline-until", "experiment %q: which run should {baseline-until} split? Its runs: %s", e.Name, listRuns(runs)),
			Try: []param.Arg{{Param: "treatment", Value: runs[0].Run}, {Param: "baseline-until", Value: h.BaselineUntil}},
		}
	}
	at, how, err := rc.splitAt(side.Experiment, h.BaselineUntil)
	if err != nil {
		return err
	}
	s.Control, s.Treatment = side, side
	s.Control.UntilMs, s.Treatment.FromMs = &at, &at
	s.Split = how
	return nil
}

// HasTags reports whether the treatment side has tagged requests: damage is
// then tagged requests not ok, else every treatment request not ok.
func HasTags(db store.Querier, s Side) (bool, error) {
	where, args := s.where()
	var b bool
	err := db.QueryRow(`SELECT EXISTS (SELECT 1 FROM requests WHERE tagged AND `+where+`)`, args...).Scan(&b)
	return b, err
}

// DamageNote says which damage definition a result used.
func DamageNote(tagged bool) string {
	if tagged {
		return "damage: tagged treatment requests not ok"
	}
	return "damage: every treatment request not ok (the treatment side has no tagged requests)"
}

func Plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
