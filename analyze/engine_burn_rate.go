package analyze

import (
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// BurnRateOn is BurnRate with the per-request work on r's engine, in three
// reduce steps (docs/scale.md): the table's span; the library's bound
// (_br_plan) over each run's requests summed per bucket of end times, of
// which the runs, the possible buckets and the prefix sums the exact
// search reads come back; and the end moments, summed per moment, of the
// buckets the candidates need only (_br_candidate_buckets, read in DuckDB
// from the bound's rows). TEMP macros over those rows shadow _br_span,
// _br_plan and _br_points, so that the library's burn_rate finishes
// unchanged. With --by, the group's fields are one more key of the last
// two steps (engine_by.go), and burn_rate_by finishes. --good (a DuckDB
// expression) is refused.
func BurnRateOn(r *Remote, o BurnRateOptions) (*Result, error) {
	if o.Good != "" {
		return nil, r.NotOnEngine("burn-rate with {good}", "{good} is a DuckDB expression and is not translated (the default, outcome = 'ok', is)")
	}
	db := r.Querier()
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, err
	}
	if o.SLO == "" {
		return nil, fmt.Errorf("burn rate needs an SLO, e.g. 99.9%%")
	}
	rules := o.Rules
	if len(rules) == 0 {
		rules = hypothesis.DefaultBurnRules
	}
	eg, err := r.groupOn("burn-rate", db, e.Name, o.By)
	if err != nil {
		return nil, err
	}
	q := hypothesis.BurnQuery{SLO: o.SLO, Rules: rules, Period: o.Period, Step: o.Step, Partial: o.Partial}
	if len(o.By) > 0 {
		q.Group, q.Select = eg.g.key, eg.g.sel("*")
	}
	if err := r.burnSteps(e.Name, eg, q); err != nil {
		return nil, err
	}
	res, err := Query(db, "burn-rate", store.Units("burn_rate"), q.SQL(), e.Name)
	if err != nil {
		return nil, err
	}
	if len(res.Rows) == 0 {
		return nil, fmt.Errorf("experiment %q has no t_ms: burn rates are evaluated over time and need send times", e.Name)
	}
	res.Notes = burnNotes(res, rules, o.Partial, len(o.By))
	return res, nil
}

// burnSteps runs the three reduce steps and shadows the macros that read
// requests with TEMP macros over their rows, for experiment exp and q's
// arguments only (a call with others raises).
func (r *Remote) burnSteps(exp string, eg engineGroup, q hypothesis.BurnQuery) error {
	lit := engine.String(exp)
	err := r.reduce("_remote_br_span", "span_ns BIGINT, max_latency_ms DOUBLE, exp_span DOUBLE, min_latency_ms DOUBLE", `
SELECT CAST(round((max(t_ms) - min(t_ms) + coalesce(max(latency_ms), 0D)) * 1000000D) AS BIGINT) AS span_ns,
       coalesce(max(latency_ms), 0D) AS max_latency_ms,
       max(CASE WHEN experiment = `+lit+` THEN t_ms + coalesce(latency_ms, 0D) END)
           - min(CASE WHEN experiment = `+lit+` THEN t_ms END) AS exp_span,
       min(CASE WHEN experiment = `+lit+` AND t_ms IS NOT NULL THEN latency_ms END) AS min_latency_ms
FROM requests`)
	if err != nil {
		return err
	}
	var span, least sql.NullFloat64
	if err := r.db.QueryRowContext(r.ctx, `SELECT exp_span, min_latency_ms FROM _remote_br_span`).Scan(&span, &least); err != nil {
		return err
	}
	if least.Valid && least.Float64 < 0 {
		// ingest refuses one; a dataset written elsewhere may hold it, and
		// the bound on the engine fills a run's buckets from its first send
		return fmt.Errorf("experiment %q has a request with latency_ms %v: a request cannot end before it is sent, and burn-rate on %s counts requests at their end", exp, least.Float64, r.eng.Name())
	}
	if err := checkBurnSpan(span, q.Rules); err != nil {
		return err
	}
	if err := r.shadow(`_br_span() AS TABLE SELECT span_ns, max_latency_ms FROM _remote_br_span`); err != nil {
		return err
	}
	g, err := r.burnPlan(exp, eg, q)
	if err != nil {
		return err
	}
	// the group is not compared with --by: it is an expression over the
	// columns of requests, which the table lacks
	mismatch := `exp IS DISTINCT FROM ` + sqllit.String(exp)
	if len(eg.fields) == 0 {
		mismatch += ` OR grp IS DISTINCT FROM true`
	}
	if err := r.shadow(`_br_plan(exp, grp, good, slo, rules, step_ms, partial, bucket_ns) AS TABLE
    SELECT part, run, ` + eg.vk() + ` AS gk, id, k, lo, hi, cn, cb, t0, e1, dur, total, bad_total, unjudged FROM _remote_br_plan
    WHERE CASE WHEN ` + mismatch + ` OR ` + q.OtherPlan() + `
               THEN error('_br_plan: the engine''s bound was computed for other arguments') ELSE true END`); err != nil {
		return err
	}
	if err := r.shadow(`_br_bucket_sums(exp, good, grp, g) AS TABLE
    SELECT * FROM (SELECT NULL AS run, NULL AS gk, NULL::BIGINT AS k, NULL::HUGEINT AS n, NULL::HUGEINT AS bad, NULL::HUGEINT AS none,
                          NULL::BIGINT AS s0, NULL::BIGINT AS e1)
    WHERE error('_br_bucket_sums: the buckets stay on the engine (_br_plan is its rows)')`); err != nil {
		return err
	}
	if err := r.burnEnds(exp, eg, g, q); err != nil {
		return err
	}
	return r.shadow(`_br_points(exp, good, grp) AS TABLE
    SELECT run, ` + eg.vk() + ` AS gk, t_ms, NULL::BIGINT AS send_ns, t AS end_ns, n, bad, 0 AS none FROM _remote_br_ends
    WHERE CASE WHEN ` + mismatch + `
               THEN error('_br_points: the engine''s end moments were computed for other arguments') ELSE true END`)
}

// burnPlan is the second step: the library's bound (_br_plan) on the
// engine, so that what comes back is the bound's verdicts and not the
// buckets. Each run's (and group's) requests are summed per bucket of end
// times; the run's own sums come from windows over those rows, and each
// row fills the empty buckets before it (from the run's first send's
// bucket on), so that every bucket has its prefix sums; each rule's union
// and intersection sums are lags of those at the rule's offsets (in
// buckets: literals, as Spark's lag takes no column), compared with the
// threshold exactly (bad > thr * n as bad * den > num * n in
// DECIMAL(38,0), thr = num / den in lowest terms). All of it is windows
// over one partitioning by run and group, in bucket order, read once. Back
// come the runs, the possible buckets and the prefix sums of the buckets
// just before those the candidates need (the only ones the exact search
// reads): rows that grow with the candidates, not with the run's length.
// The buckets the candidates need ('pb') are the possible ones less each
// rule's offsets, added here. It returns g, the bucket size.
func (r *Remote) burnPlan(exp string, eg engineGroup, q hypothesis.BurnQuery) (int64, error) {
	rules, err := r.burnRules(q)
	if err != nil {
		return 0, err
	}
	g := rules[0].g
	for _, u := range rules {
		if u.lUp+2 > math.MaxInt32 { // the largest offset: a lead of l_dn + 2
			return 0, r.NotOnEngine("burn-rate with {rules} whose long window spans more than 2^31 buckets of its short one's 1/64",
				"the bound's lags take an INT offset on Spark")
		}
	}
	gl := engine.Int(g)
	dec := func(x string) string { return "CAST(" + x + " AS DECIMAL(38,0))" }
	run := "run" + eg.keys()
	byK := "(PARTITION BY " + run + " ORDER BY k)"
	// an INT offset: Spark refuses a BIGINT one for lag and lead
	lag := func(c string, d int64) string {
		return "lag(" + c + ", " + strconv.FormatInt(d, 10) + ", 0L) OVER " + byK
	}
	lead := func(c string, d int64) string {
		return "lead(" + c + ", " + strconv.FormatInt(d, 10) + ", false) OVER " + byK
	}
	carried := "t0, e1, total, bad_total, unjudged"
	// element is one of a bucket's output rows, kept where keep holds
	null := "CAST(NULL AS BIGINT)"
	element := func(part, id, k, lo, hi, cn, cb, keep string) string {
		return "named_struct('part', '" + part + "', 'id', " + id + ", 'k', " + k + ", 'lo', " + lo + ", 'hi', " + hi +
			", 'cn', " + cn + ", 'cb', " + cb + ", 'keep', " + keep + ")"
	}
	var sums, judged, firsts, poss, need, offsets, parts []string
	for _, u := range rules {
		i := strconv.FormatInt(u.id, 10)
		above := func(bad, n string) string { return dec(bad+i) + " * " + u.den + " > " + u.num + " * " + dec(n+i) }
		inner := func(c string, dn int64) string {
			if dn < 1 {
				return "0L"
			}
			return lag(c, 1) + " - " + lag(c, dn)
		}
		lo := "greatest(k * " + gl + ", t0 + " + engine.Int(map[bool]int64{true: 0, false: u.longNs}[q.Partial]) + ")"
		if u.step.Valid {
			st := engine.Int(u.step.Int64)
			lo = "t0 + (greatest(" + lo + " - t0, " + st + ") + " + st + " - 1) div " + st + " * " + st
		}
		sums = append(sums, lo+" AS lo"+i,
			"cn - "+lag("cn", u.sUp+1)+" AS un_s"+i, "cb - "+lag("cb", u.sUp+1)+" AS ub_s"+i,
			inner("cn", u.sDn)+" AS in_s"+i, inner("cb", u.sDn)+" AS ib_s"+i,
			"cn - "+lag("cn", u.lUp+1)+" AS un_l"+i, "cb - "+lag("cb", u.lUp+1)+" AS ub_l"+i,
			inner("cn", u.lDn)+" AS in_l"+i, inner("cb", u.lDn)+" AS ib_l"+i)
		// a product past DECIMAL(38,0) is an error (ANSI mode, Spark's
		// default) or NULL: then the bucket stays possible and is not sure,
		// which costs candidates but never a firing
		judged = append(judged, "lo"+i,
			"lo"+i+" <= hi AND coalesce("+above("ub_s", "in_s")+" AND "+above("ub_l", "in_l")+", true) AS may"+i,
			"lo"+i+" <= hi AND coalesce("+above("ib_s", "un_s")+" AND "+above("ib_l", "un_l")+", false) AS sure"+i)
		firsts = append(firsts, "lo"+i, "may"+i, "min(CASE WHEN sure"+i+" THEN k END) OVER (PARTITION BY "+run+") AS kc"+i)
		poss = append(poss, "lo"+i, "may"+i+" AND (kc"+i+" IS NULL OR k <= kc"+i+") AS poss"+i)
		// a bucket the candidates need is K - d, K possible and d one of
		// the rule's offsets; its prefix sums are read at K - d - 1
		for _, d := range []int64{0, u.sDn, u.sDn + 1, u.lDn, u.lDn + 1} {
			need = append(need, lead("poss"+i, d+1))
			offsets = append(offsets, "("+strconv.FormatInt(u.id, 10)+", "+strconv.FormatInt(d, 10)+")")
		}
		parts = append(parts, element("poss", engine.Int(u.id), "k", "lo"+i, "hi", null, null, "poss"+i))
	}
	parts = append(parts, element("pre", null, "k", null, null, "cn", "cb", "need"),
		element("run", null, null, null, null, null, null, "k = ft0")) // once, at the run's first bucket
	ft0 := "((t0 - pmod(t0, " + gl + ")) div " + gl + ")"
	step := `
WITH bsum AS (
    SELECT ` + run + `, k, sum(n) AS n, sum(bad) AS bad, sum(none) AS none, min(send_ns) AS s0, max(end_ns) AS e1
    FROM (` + burnPoints(exp, eg, g) + `)
    GROUP BY ` + run + `, k),
whole AS (
    SELECT ` + run + `, k, n, bad, lag(k, 1) OVER ` + byK + ` AS kp,
           min(s0) OVER (PARTITION BY ` + run + `) AS t0, max(e1) OVER (PARTITION BY ` + run + `) AS e1,
           sum(n) OVER (PARTITION BY ` + run + `) AS total, sum(bad) OVER (PARTITION BY ` + run + `) AS bad_total,
           sum(none) OVER (PARTITION BY ` + run + `) AS unjudged
    FROM bsum),
dense AS (
    SELECT ` + run + `, ` + carried + `, ft0, kd AS k, CASE WHEN kd = k THEN n ELSE 0L END AS n, CASE WHEN kd = k THEN bad ELSE 0L END AS bad
    FROM (SELECT *, explode(sequence(CASE WHEN kp IS NULL OR kp < ft0 THEN ft0 ELSE kp + 1 END, k)) AS kd
          FROM (SELECT *, ` + ft0 + ` AS ft0 FROM whole) WHERE k >= ft0)),
pre AS (
    SELECT ` + run + `, k, ft0, ` + carried + `,
           sum(n) OVER (PARTITION BY ` + run + ` ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cn,
           sum(bad) OVER (PARTITION BY ` + run + ` ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cb
    FROM dense),
sums AS (
    SELECT ` + run + `, k, ft0, ` + carried + `, cn, cb, least((k + 1) * ` + gl + ` - 1, e1) AS hi,
           ` + strings.Join(sums, ",\n           ") + `
    FROM pre),
judged AS (SELECT ` + run + `, k, ft0, ` + carried + `, cn, cb, hi, ` + strings.Join(judged, ", ") + ` FROM sums),
firsts AS (SELECT ` + run + `, k, ft0, ` + carried + `, cn, cb, hi, ` + strings.Join(firsts, ", ") + ` FROM judged),
possible AS (SELECT ` + run + `, k, ft0, ` + carried + `, cn, cb, hi, ` + strings.Join(poss, ", ") + ` FROM firsts),
marked AS (SELECT *, ` + strings.Join(need, " OR ") + ` AS need FROM possible)
SELECT x.part, ` + run + `, x.id, x.k, x.lo, x.hi, x.cn, x.cb,
       CASE WHEN x.part = 'run' THEN t0 END AS t0, CASE WHEN x.part = 'run' THEN e1 END AS e1,
       CASE WHEN x.part = 'run' THEN e1 - t0 END AS dur, CASE WHEN x.part = 'run' THEN total END AS total,
       CASE WHEN x.part = 'run' THEN bad_total END AS bad_total, CASE WHEN x.part = 'run' THEN unjudged END AS unjudged
FROM (SELECT ` + run + `, ` + carried + `, explode(filter(array(` + strings.Join(parts, ",\n            ") + `), x -> x.keep)) AS x
      FROM marked)`
	if err := r.reduce("_remote_br_plan", "part VARCHAR, run VARCHAR"+eg.cols()+`, id BIGINT, k BIGINT, lo BIGINT, hi BIGINT,
cn HUGEINT, cb HUGEINT, t0 BIGINT, e1 BIGINT, dur BIGINT, total BIGINT, bad_total BIGINT, unjudged BIGINT`, step); err != nil {
		return 0, err
	}
	_, err = r.db.ExecContext(r.ctx, `INSERT INTO _remote_br_plan (part, run`+eg.keys()+`, k)
SELECT DISTINCT 'pb', run`+eg.keys()+`, k - d FROM _remote_br_plan JOIN (VALUES `+strings.Join(offsets, ", ")+`) AS o(id, d) USING (id)
WHERE part = 'poss'`)
	return g, err
}

// burnRule is what the bound needs of a rule, as the library's _br_rules
// makes it: the bucket size g, the windows in buckets, the long window in
// ns, the threshold as num / den in lowest terms (Spark SQL literals), and
// the step in ns.
type burnRule struct {
	id, g, sUp, sDn, lUp, lDn, longNs int64
	num, den                          string
	step                              sql.NullInt64
}

// burnRules reads q's rules from _br_rules in the in-memory database
// (its _br_span the engine's).
func (r *Remote) burnRules(q hypothesis.BurnQuery) ([]burnRule, error) {
	rows, err := r.db.QueryContext(r.ctx, q.RulesSQL())
	if err != nil {
		return nil, err
	}
	var rules []burnRule
	for rows.Next() {
		var u burnRule
		var thr string
		if err := rows.Scan(&u.id, &u.g, &u.sUp, &u.sDn, &u.lUp, &u.lDn, &u.longNs, &thr, &u.step); err != nil {
			rows.Close()
			return nil, err
		}
		t, ok := new(big.Rat).SetString(thr)
		if !ok || !t.Num().IsInt64() || !t.Denom().IsInt64() {
			rows.Close()
			return nil, fmt.Errorf("burn-rate: threshold %s is past the engine's exact comparison", thr)
		}
		u.num, u.den = engine.Int(t.Num().Int64()), engine.Int(t.Denom().Int64())
		rules = append(rules, u)
	}
	err = rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err == nil && len(rules) == 0 {
		err = fmt.Errorf("burn-rate: no rules")
	}
	return rules, err
}

// burnEnds is the third step: the end moments of the candidate buckets'
// requests, summed per (run, moment), with the first send among them (a
// send within the library's bounds on the sends those buckets hold). The
// buckets go to the engine as ranges of consecutive ones per run, those
// of every group (the library reads a group's candidate buckets only).
func (r *Remote) burnEnds(exp string, eg engineGroup, g int64, q hypothesis.BurnQuery) error {
	rows, err := r.db.QueryContext(r.ctx, q.CandidateBucketsSQL(), exp)
	if err != nil {
		return err
	}
	type span struct {
		run    string
		lo, hi int64
	}
	var spans []span
	for rows.Next() {
		var run string
		var k int64
		if err := rows.Scan(&run, &k); err != nil {
			rows.Close()
			return err
		}
		if n := len(spans); n > 0 && spans[n-1].run == run && spans[n-1].hi+1 >= k {
			spans[n-1].hi = max(spans[n-1].hi, k) // another group's bucket: once
			continue
		}
		spans = append(spans, span{run, k, k})
	}
	err = rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	ranges := make([]string, len(spans))
	for i, s := range spans {
		ranges[i] = "(" + engine.String(s.run) + ", " + engine.Int(s.lo) + ", " + engine.Int(s.hi) + ")"
	}
	step := `SELECT CAST(NULL AS STRING) AS run` + nullKeys(eg) + `, CAST(NULL AS BIGINT) AS t, CAST(NULL AS BIGINT) AS n, CAST(NULL AS BIGINT) AS bad, CAST(NULL AS DOUBLE) AS t_ms WHERE false`
	if len(ranges) > 0 {
		step = `
SELECT p.run` + eg.keysOf("p") + `, p.end_ns AS t, sum(p.n) AS n, sum(p.bad) AS bad, min(p.t_ms) AS t_ms
FROM (` + burnPoints(exp, eg, g) + `) p
JOIN (VALUES ` + strings.Join(ranges, ", ") + `) AS c(run, klo, khi) ON p.run = c.run AND p.k BETWEEN c.klo AND c.khi
GROUP BY p.run` + eg.keysOf("p") + `, p.end_ns`
	}
	return r.reduce("_remote_br_ends", "run VARCHAR"+eg.cols()+", t BIGINT, n HUGEINT, bad HUGEINT, t_ms DOUBLE", step)
}

// burnPoints is _br_points over the default SLI (outcome = 'ok') in Spark
// SQL, with each row's bucket k = floor(end_ns / g) (an integer floor: div
// truncates, pmod does not): send and end in integer ns, rounded as
// DuckDB's round (half away from zero).
func burnPoints(exp string, eg engineGroup, g int64) string {
	gl := engine.Int(g)
	return `SELECT run` + eg.keys() + `, t_ms, send_ns, end_ns, (end_ns - pmod(end_ns, ` + gl + `)) div ` + gl + ` AS k, n, bad, none
FROM (SELECT run, t_ms, CAST(round(t_ms * 1000000D) AS BIGINT) AS send_ns,
             CAST(round(t_ms * 1000000D) AS BIGINT) + coalesce(CAST(round(latency_ms * 1000000D) AS BIGINT), 0L) AS end_ns,
             CASE WHEN (outcome = 'ok') IS NOT NULL THEN count ELSE 0L END AS n,
             CASE WHEN NOT (outcome = 'ok') THEN count ELSE 0L END AS bad,
             CASE WHEN (outcome = 'ok') IS NULL THEN 1L ELSE 0L END AS none` + eg.sel() + `
      FROM requests WHERE experiment = ` + engine.String(exp) + ` AND t_ms IS NOT NULL)`
}

// shadow makes a TEMP macro (its text after the name) in the in-memory
// database, which a library macro's call of that name reads instead of
// its own.
func (r *Remote) shadow(macro string) error {
	_, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO `+macro)
	return err
}

// nullKeys is ", CAST(NULL AS type) AS g0, …" in Spark SQL, the group's
// columns of a step with no rows.
func nullKeys(eg engineGroup) string {
	var b strings.Builder
	for i, t := range eg.types {
		st := map[string]string{"VARCHAR": "STRING", "INTEGER": "INT", "BOOLEAN": "BOOLEAN"}[t]
		fmt.Fprintf(&b, ", CAST(NULL AS %s) AS g%d", st, i)
	}
	return b.String()
}
