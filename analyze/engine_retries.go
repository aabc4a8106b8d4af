package analyze

import (
	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// RetriesOn is Retries with the per-request work on r's engine in two
// reduce steps: each run's first and last t_ms (the span check, and the
// whole run when no affected interval is given or stored), then
// _retry_sums (queries/retries.sql): per run its attempt counts and
// affected operations, and the histogram of operation latencies, one row
// per run and distinct latency. A TEMP macro of that name reads them, and
// the library's retries finishes (the percentiles picked from the
// histograms). With --by, the group's fields are one more key of the
// second step (engine_by.go).
func RetriesOn(r *Remote, o RetriesOptions) (*Result, error) {
	db := r.Querier()
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, err
	}
	if err := r.reduce("_remote_retry_spans", "run VARCHAR, lo DOUBLE, hi DOUBLE", `
SELECT run, min(t_ms) AS lo, max(t_ms) AS hi FROM requests WHERE experiment = `+engine.String(e.Name)+` GROUP BY run`); err != nil {
		return nil, err
	}
	if err := checkRetriesSpanOf(db, `SELECT run, lo, hi FROM _remote_retry_spans`); err != nil {
		return nil, err
	}
	eg, err := r.groupOn("retries", db, e.Name, o.By)
	if err != nil {
		return nil, err
	}
	span, note, err := retriesSpan(e, o, func() (hypothesis.Span, *param.Error, error) {
		return wholeRunOf(db, e.Name, `SELECT min(lo), max(hi) FROM _remote_retry_spans`)
	})
	if err != nil {
		return nil, err
	}
	if err := r.retrySums(e.Name, eg, span); err != nil {
		return nil, err
	}
	return retriesQuery(db, e, eg.g, span, note, false) // the step's bounds are span's
}

// retrySums runs the reduce step of _retry_sums and makes the in-memory
// database's _retry_sums read its rows, for exp and span only (a call with
// other arguments raises an error).
func (r *Remote) retrySums(exp string, eg engineGroup, span hypothesis.Span) error {
	if err := r.reduce("_remote_retry_sums_raw", "run VARCHAR"+eg.cols()+", us BIGINT, c BIGINT, requests BIGINT, first_attempts BIGINT, retries BIGINT, budget_denied BIGINT, affected_ops BIGINT, affected_ok BIGINT",
		retrySumsStep(exp, eg, span)); err != nil {
		return err
	}
	// an operation's latency is DECIMAL(18,6) locally, cast to DOUBLE: the
	// same cast of the same decimal, made from its integer of µs; two
	// decimals that cast to one DOUBLE are one row of the histogram, as
	// locally
	gk := eg.vk()
	if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE _remote_retry_sums AS
WITH raw AS (SELECT run, `+gk+` AS gk, * EXCLUDE (run`+eg.keys()+`) FROM _remote_retry_sums_raw)
SELECT a.run, a.gk, NULL::DOUBLE AS v, NULL::BIGINT AS c, a.requests, a.first_attempts, a.retries, a.budget_denied,
       f.affected_ops, f.affected_ok
FROM raw a
JOIN (SELECT run, gk, sum(affected_ops)::BIGINT AS affected_ops, sum(affected_ok)::BIGINT AS affected_ok
      FROM raw WHERE requests IS NULL GROUP BY run, gk) f ON f.run = a.run AND f.gk IS NOT DISTINCT FROM a.gk
WHERE a.requests IS NOT NULL
UNION ALL
SELECT run, gk, v, sum(c)::BIGINT, NULL, NULL, NULL, NULL, NULL, NULL
FROM (SELECT run, gk, (us::DECIMAL(38,0) * 0.000001::DECIMAL(7,6))::DECIMAL(18,6)::DOUBLE AS v, c FROM raw
      WHERE requests IS NULL AND us IS NOT NULL)
GROUP BY run, gk, v`); err != nil {
		return err
	}
	check := `exp IS DISTINCT FROM ` + sqllit.String(exp)
	if len(eg.fields) == 0 {
		check += ` OR grp IS DISTINCT FROM true`
	}
	_, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO _retry_sums(exp, grp, affected_from_ms, affected_to_ms) AS TABLE
    SELECT * FROM _remote_retry_sums
    WHERE CASE WHEN `+check+`
                    OR affected_from_ms::DOUBLE IS DISTINCT FROM `+duckDouble(span.FromMs)+`
                    OR affected_to_ms::DOUBLE IS DISTINCT FROM `+duckDouble(span.ToMs)+`
               THEN error('_retry_sums: the engine''s sums were computed for other arguments') ELSE true END`)
	return err
}

// retrySumsStep is _retry_sums in Spark SQL, with the latencies as integers
// of µs (the DECIMAL(18,6)'s unscaled value). Operations are grouped by
// their key (run, group, req, else req_text, else the row): locally only
// the reqs that may have several rows are grouped (_retry_multi), and
// every other one is one row, whose latency is the same. An operation's
// times are taken relative to its run's (and group's) base (_op_base over
// the rows _retry_multi groups, whose blocks of 64 reqs are found here the
// same way), since the decimal of t - base is rounded from that
// difference; a one-row operation's latency does not depend on the base.
// A DOUBLE's decimal is round(x * 10^6), half away from zero, in both
// engines. The operations are read by one aggregate, per (run, group,
// latency) with the affected ones counted there, which DuckDB sums per
// run: Spark inlines a CTE into each of its references, and two reads of
// ops made it group every request by its operation twice (issue 36). The
// bases (a row per run and group) are broadcast: joined by a shuffle on
// run, the rows stayed partitioned by run for the operations' GROUP BY
// (that partitioning satisfies it), so one task per run grouped every
// request: 248 s of 373 in one task at 100 M rows (bench/README.md, "One
// worker against two: where the cores go").
func retrySumsStep(exp string, eg engineGroup, span hypothesis.Span) string {
	us := func(x string) string { return `CAST(round((` + x + `) * 1000000D) AS BIGINT)` }
	from, to := engine.Double(span.FromMs), engine.Double(span.ToMs)
	k, kq := eg.keys(), eg.keysOf("q")
	return `WITH q AS (SELECT run` + eg.sel() + `, req, req_text, seq, attempt, t_ms, latency_ms, outcome, count, drop_reason
           FROM requests WHERE experiment = ` + engine.String(exp) + `),
twice AS (SELECT run` + k + `, shiftright(req, 6) AS b FROM q WHERE attempt = 0 AND req IS NOT NULL
          GROUP BY run` + k + `, shiftright(req, 6)
          HAVING count(*) > bit_count(bit_or(shiftleft(1L, CAST(req & 63L AS INT))))),
multi AS (SELECT run` + k + `, req FROM q WHERE req IS NOT NULL AND attempt <> 0
          UNION
          SELECT q.run` + kq + `, q.req FROM q JOIN twice t ON t.run = q.run` + eg.on("t", "q") + ` AND t.b = shiftright(q.req, 6) WHERE q.attempt = 0),
bases AS (SELECT run` + k + `, CASE WHEN min(t_ms) >= 0 THEN floor(min(t_ms)) WHEN max(t_ms) <= 0 THEN ceil(max(t_ms)) ELSE 0L END AS base
          FROM (SELECT run` + k + `, t_ms FROM q LEFT SEMI JOIN multi m ON m.run = q.run` + eg.on("m", "q") + ` AND m.req = q.req
                UNION ALL
                SELECT run` + k + `, t_ms FROM q WHERE req IS NULL)
          GROUP BY run` + k + `),
ops AS (SELECT /*+ BROADCAST(b) */ q.run` + kq + `, min(q.t_ms) AS start_ms,
               CASE WHEN count(*) = 1 THEN max(CASE WHEN q.t_ms IS NOT NULL THEN ` + us("q.latency_ms") + ` END)
                    ELSE max(` + us("q.t_ms - b.base") + ` + ` + us("q.latency_ms") + `) - min(` + us("q.t_ms - b.base") + `) END AS op_us,
               bool_or(q.outcome = 'ok') AS ok
        FROM q LEFT JOIN bases b ON b.run = q.run` + eg.on("b", "q") + `
        GROUP BY q.run` + kq + `, q.req, CASE WHEN q.req IS NULL THEN q.req_text END, CASE WHEN q.req IS NULL AND q.req_text IS NULL THEN q.seq END)
SELECT run` + k + `, CAST(NULL AS BIGINT) AS us, CAST(NULL AS BIGINT) AS c, sum(count) AS requests,
       coalesce(sum(count) FILTER (WHERE attempt = 0), 0L) AS first_attempts,
       coalesce(sum(count) FILTER (WHERE attempt > 0), 0L) AS retries,
       coalesce(sum(count) FILTER (WHERE drop_reason = 'budget'), 0L) AS budget_denied,
       CAST(NULL AS BIGINT) AS affected_ops, CAST(NULL AS BIGINT) AS affected_ok
FROM q GROUP BY run` + k + `
UNION ALL
SELECT run` + k + `, op_us, count(*), NULL, NULL, NULL, NULL,
       count_if(start_ms >= ` + from + ` AND start_ms < ` + to + `),
       count_if(start_ms >= ` + from + ` AND start_ms < ` + to + ` AND ok)
FROM ops GROUP BY run` + k + `, op_us`
}
