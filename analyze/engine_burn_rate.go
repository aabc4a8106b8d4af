package analyze

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// BurnRateOn is BurnRate with the per-request work on r's engine, in three
// reduce steps (docs/scale.md): the table's span; each run's requests
// summed per bucket of end times (_br_bucket_sums); and the end moments,
// summed per moment, of the buckets the candidates need only
// (_br_candidate_buckets, read in DuckDB from the buckets' sums). TEMP
// macros over those rows shadow _br_span, _br_bucket_sums and _br_points,
// so that the library's burn_rate finishes unchanged. With --by, the
// group's fields are one more key of the last two steps (engine_by.go),
// and burn_rate_by finishes. --good (a DuckDB expression) is refused.
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
	err := r.reduce("_remote_br_span", "span_ns BIGINT, max_latency_ms DOUBLE, exp_span DOUBLE", `
SELECT CAST(round((max(t_ms) - min(t_ms) + coalesce(max(latency_ms), 0D)) * 1000000D) AS BIGINT) AS span_ns,
       coalesce(max(latency_ms), 0D) AS max_latency_ms,
       max(CASE WHEN experiment = `+lit+` THEN t_ms + coalesce(latency_ms, 0D) END)
           - min(CASE WHEN experiment = `+lit+` THEN t_ms END) AS exp_span
FROM requests`)
	if err != nil {
		return err
	}
	var span sql.NullFloat64
	if err := r.db.QueryRowContext(r.ctx, `SELECT exp_span FROM _remote_br_span`).Scan(&span); err != nil {
		return err
	}
	if err := checkBurnSpan(span, q.Rules); err != nil {
		return err
	}
	if err := r.shadow(`_br_span() AS TABLE SELECT span_ns, max_latency_ms FROM _remote_br_span`); err != nil {
		return err
	}
	var g int64
	if err := r.db.QueryRowContext(r.ctx, q.BucketSizeSQL()).Scan(&g); err != nil {
		return err
	}
	keys := eg.keys()
	if err := r.reduce("_remote_br_buckets", "run VARCHAR"+eg.cols()+", k BIGINT, n HUGEINT, bad HUGEINT, none HUGEINT, s0 BIGINT, e1 BIGINT", `
SELECT run`+keys+`, k, sum(n) AS n, sum(bad) AS bad, sum(none) AS none, min(send_ns) AS s0, max(end_ns) AS e1
FROM (`+burnPoints(exp, eg, g)+`)
GROUP BY run`+keys+`, k`); err != nil {
		return err
	}
	// the group is not compared with --by: it is an expression over the
	// columns of requests, which the table lacks
	mismatch := `exp IS DISTINCT FROM ` + sqllit.String(exp)
	if len(eg.fields) == 0 {
		mismatch += ` OR grp IS DISTINCT FROM true`
	}
	if err := r.shadow(`_br_bucket_sums(exp, good, grp, g) AS TABLE
    SELECT run, ` + eg.vk() + ` AS gk, k, n, bad, none, s0, e1 FROM _remote_br_buckets
    WHERE CASE WHEN ` + mismatch + ` OR g IS DISTINCT FROM ` + fmt.Sprint(g) + `
               THEN error('_br_bucket_sums: the engine''s buckets were computed for other arguments') ELSE true END`); err != nil {
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
