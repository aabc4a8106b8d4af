package hypothesis

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// BurnRule fires when both windows burn the error budget faster than Factor.
type BurnRule struct {
	Name        string // as written: 5m/1h>14.4
	Short, Long time.Duration
	Factor      Decimal
}

// Decimal is an exact decimal, kept as its text ("0.999", "14.4").
type Decimal string

// DefaultBurnRules are the SRE workbook's (chapter 5, "Multiwindow,
// Multi-Burn-Rate Alerts"): page at 14.4 over 5m and 1h, and at 6 over 30m
// and 6h; ticket at 1 over 6h and 3d.
var DefaultBurnRules = []BurnRule{
	{"5m/1h>14.4", 5 * time.Minute, time.Hour, "14.4"},
	{"30m/6h>6", 30 * time.Minute, 6 * time.Hour, "6"},
	{"6h/3d>1", 6 * time.Hour, 72 * time.Hour, "1"},
}

// DefaultPeriod is the SLO period of the workbook's factors.
const DefaultPeriod = 30 * 24 * time.Hour

// CheckGood wants good to be one boolean expression over the request
// columns, as blast-radius wants its plan (planned.go): it is pasted into
// the query.
func CheckGood(db store.Querier, good, exp string) error {
	reason, err := CheckPlanned(db, good)
	if err == nil && reason == "" {
		reason, err = goodType(db, good, exp)
	}
	if err != nil {
		return param.Errorf("good", "{good} %q: %w", good, err)
	}
	if reason != "" {
		return param.Errorf("good", "{good} %q: want one boolean expression over the request columns, %s", good, reason)
	}
	return nil
}

func goodType(db store.Querier, good, exp string) (string, error) {
	return notBoolean(db, `SELECT (`+good+`) AS good FROM requests WHERE experiment = ? LIMIT 0`, exp)
}

// ParseSLO reads an SLO as a percentage ("99.9%") or a share ("0.999").
func ParseSLO(s string) (Decimal, error) {
	text := strings.TrimSpace(s)
	pct := strings.HasSuffix(text, "%")
	r, ok := new(big.Rat).SetString(strings.TrimSpace(strings.TrimSuffix(text, "%")))
	if !ok || strings.ContainsAny(text, "eE/") {
		return "", fmt.Errorf("SLO %q: want a percentage such as 99.9%% or a share such as 0.999", s)
	}
	if pct {
		r.Quo(r, big.NewRat(100, 1))
	}
	d, ok := decimalOf(r, 9)
	if !ok || r.Sign() <= 0 || r.Cmp(big.NewRat(1, 1)) >= 0 {
		return "", fmt.Errorf("SLO %q: want a share of good requests above 0 and below 100%%, with at most 7 decimals in percent (99.9%%, 0.999)", s)
	}
	return d, nil
}

// ParseBurnRules reads "SHORT/LONG>FACTOR,...", e.g. "5m/1h>14.4,6h/3d>1".
func ParseBurnRules(s string) ([]BurnRule, error) {
	var out []BurnRule
	for _, part := range strings.Split(s, ",") {
		r, err := parseBurnRule(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func parseBurnRule(s string) (BurnRule, error) {
	bad := func(why string) (BurnRule, error) {
		return BurnRule{}, fmt.Errorf("rule %q: %s (want SHORT/LONG>FACTOR, e.g. 5m/1h>14.4)", s, why)
	}
	windows, factor, ok := strings.Cut(s, ">")
	short, long, ok2 := strings.Cut(windows, "/")
	if !ok || !ok2 {
		return bad("not a rule")
	}
	var r BurnRule
	var err error
	if r.Short, err = ParseLongDuration(short); err != nil || r.Short <= 0 {
		return bad("the short window is not a positive duration")
	}
	if r.Long, err = ParseLongDuration(long); err != nil || r.Long <= 0 {
		return bad("the long window is not a positive duration")
	}
	if r.Short >= r.Long {
		return bad("the short window must be shorter than the long one")
	}
	f, ok := new(big.Rat).SetString(strings.TrimSpace(factor))
	if !ok || strings.ContainsAny(factor, "eE/") || f.Sign() < 0 {
		return bad("the factor is not a number of 0 or more")
	}
	if r.Factor, ok = decimalOf(f, 6); !ok {
		return bad("the factor has more than 6 decimals")
	}
	r.Name = ShortDuration(r.Short) + "/" + ShortDuration(r.Long) + ">" + string(r.Factor)
	return r, nil
}

// decimalOf writes r with at most places decimals, if that is exact.
func decimalOf(r *big.Rat, places int) (Decimal, bool) {
	s := r.FloatString(places)
	back, _ := new(big.Rat).SetString(s)
	if back.Cmp(r) != 0 {
		return "", false
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return Decimal(s), true
}

// ShortDuration writes 5m, 1h, 30m, 3d: the units rules are written in.
func ShortDuration(d time.Duration) string {
	day := 24 * time.Hour
	if d >= day && d%day == 0 {
		return fmt.Sprintf("%dd", d/day)
	}
	s := d.String()
	for _, z := range []string{"m0s", "h0m"} {
		s = strings.Replace(s, z, z[:1], 1)
	}
	return s
}

// BurnQuery is one call of the burn_rate macro over an experiment: the
// multi-window, multi-burn-rate alerts analyze burn-rate reports and replay
// and watch stop on.
type BurnQuery struct {
	SLO     Decimal
	Rules   []BurnRule // default DefaultBurnRules
	Good    string     // a checked SQL boolean (CheckGood); default outcome = 'ok'
	Period  time.Duration
	Step    time.Duration
	Partial bool
	// Group, when not "", is the SQL of a --by group (analyze's groupBy);
	// Select then comes before the macro's columns (the group's fields),
	// and the query calls burn_rate_by.
	Group, Select string
}

// SQL is the query; its one parameter is the experiment.
func (b BurnQuery) SQL() string {
	call := "SELECT * FROM burn_rate(?, "
	if b.Group != "" {
		call = "SELECT " + b.Select + " FROM burn_rate_by(?, " + b.Group + ", "
	}
	return call + b.args() + ")"
}

// CandidateBucketsSQL is the query of the buckets whose points the first
// firings need (_br_candidate_buckets: run, gk, k), with SQL's arguments;
// its one parameter is the experiment. Group is not read.
func (b BurnQuery) CandidateBucketsSQL() string {
	return "SELECT run, k FROM _br_candidate_buckets(?, true, " + b.args() + ") ORDER BY run, k"
}

// BucketSizeSQL is the query of the bucket size in ns the macros cut time
// into (_br_rules's g) for SQL's rules, over the table's span.
func (b BurnQuery) BucketSizeSQL() string {
	return fmt.Sprintf("SELECT min(g) FROM _br_rules('%s'::DECIMAL(18,9), %s, NULL)", b.SLO, b.rules())
}

// RulesSQL is the query of what the bound needs of each rule, as _br_rules
// makes it over the table's span for SQL's rules: id, the bucket size g,
// the windows in buckets (s_up, s_dn, l_up, l_dn), long_ns, the threshold
// thr as text, and the step in ns (NULL without one); in id order.
func (b BurnQuery) RulesSQL() string {
	return fmt.Sprintf("SELECT id, g, s_up, s_dn, l_up, l_dn, long_ns, thr::VARCHAR, round(%s * 1e6)::BIGINT FROM _br_rules('%s'::DECIMAL(18,9), %s, NULL) ORDER BY id",
		sqllit.MsOrNull(b.Step), b.SLO, b.rules())
}

// PlanSQL is the query of the bound's rows (_br_plan: part, run, gk, id, k,
// lo, hi, cn, cb, t0, e1, dur, total, bad_total, unjudged) for SQL's
// arguments, with Group (true without one); its one parameter is the
// experiment.
func (b BurnQuery) PlanSQL() string {
	grp := b.Group
	if grp == "" {
		grp = "true"
	}
	return fmt.Sprintf("SELECT * FROM _br_plan(?, %s, (%s), '%s'::DECIMAL(18,9), %s, %s, %t, NULL)",
		grp, b.good(), b.SLO, b.rules(), sqllit.MsOrNull(b.Step), b.Partial)
}

// OtherPlan is a SQL boolean over _br_plan's parameters slo, rules,
// step_ms, partial and bucket_ns: true when a call's are not SQL's (a
// macro that stands in for _br_plan with rows computed for SQL's raises
// then).
func (b BurnQuery) OtherPlan() string {
	return fmt.Sprintf("slo IS DISTINCT FROM '%s'::DECIMAL(18,9) OR rules IS DISTINCT FROM %s OR step_ms IS DISTINCT FROM %s OR partial IS DISTINCT FROM %t OR bucket_ns IS NOT NULL",
		b.SLO, b.rules(), sqllit.MsOrNull(b.Step), b.Partial)
}

func (b BurnQuery) good() string {
	if b.Good == "" {
		return "outcome = 'ok'"
	}
	return b.Good
}

// args are the macros' arguments after the experiment and the group.
func (b BurnQuery) args() string {
	period := b.Period
	if period == 0 {
		period = DefaultPeriod
	}
	return fmt.Sprintf(`(%s), slo := '%s'::DECIMAL(18,9), rules := %s, period_ms := %s, step_ms := %s, partial := %t`,
		b.good(), b.SLO, b.rules(), sqllit.Ms(period), sqllit.MsOrNull(b.Step), b.Partial)
}

// rules is the list of rules as the macros read it.
func (b BurnQuery) rules() string {
	rules := b.Rules
	if len(rules) == 0 {
		rules = DefaultBurnRules
	}
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = fmt.Sprintf("{name: %s, short_ms: %s, long_ms: %s, factor: '%s'::DECIMAL(18,6)}",
			sqllit.String(r.Name), sqllit.Ms(r.Short), sqllit.Ms(r.Long), r.Factor)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
