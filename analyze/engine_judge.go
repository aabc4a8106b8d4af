package analyze

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// JudgeOn is Judge with the per-request work on r's engine: one step reads
// the experiment's span of t_ms and what its rows with count > 1 stand for
// (the local checks), one computes _judge_steps (queries/judge.sql): per
// side and step its requests, ok, latency count and sum, and the quantiles
// picked by rank from a histogram per (side, step, µs) that stays on the
// cluster; one row per side (and group) and step comes back. The arrays
// and the Mann-Whitney classification are the library's, in DuckDB and Go.
// --by runs over the columns of requests and attrs keys (groupOn).
func JudgeOn(r *Remote, o JudgeOptions) (metrics, scores *Result, err error) {
	db := r.Querier()
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, nil, err
	}
	o = o.withDefaults()
	if err := o.checkMetrics(); err != nil {
		return nil, nil, err
	}
	if err := r.judgeChecks(e.Name, o); err != nil {
		return nil, nil, err
	}
	eg, err := r.groupOn("judge", db, e.Name, o.By)
	if err != nil {
		return nil, nil, err
	}
	if err := r.judgeStepsOn(e.Name, o, eg); err != nil {
		return nil, nil, err
	}
	groups, fields, err := judgeSteps(db, e.Name, o, eg.g)
	if err != nil {
		return nil, nil, err
	}
	return judgeGroups(o, e.Name, groups, fields)
}

// judgeShort reports whether the local _judge_steps writes a row out once
// per request for these steps (count steps, or duration steps under 10 s),
// rather than counting rows per latency: the one path refuses rows with
// count > 1 past maxExpanded, and the two differ where a row has count 0.
func (o JudgeOptions) judgeShort() bool { return o.StepN > 0 || o.Step < 10*time.Second }

// judgeChecks are Judge's checkSteps and checkExpansion over one reduce
// step of the experiment's rows (one row comes back; the largest row with
// count > 1 is read in a second only when the first refuses).
func (r *Remote) judgeChecks(exp string, o JudgeOptions) error {
	return r.checksOn(exp, "judge", o.judgeShort(), o.checkSpan)
}

// checksOn is the span and expansion checks on r's engine: span gets
// max(t_ms) - min(t_ms) of exp's rows, and with expand the requests its
// rows with count > 1 stand for are bounded as checkExpansion bounds them
// (analysis names the analysis in its refusal).
func (r *Remote) checksOn(exp, analysis string, expand bool, span func(sql.NullFloat64) error) error {
	x := engine.String(exp)
	err := r.reduce("_remote_span", "span_ms DOUBLE, expanded HUGEINT", `
SELECT max(t_ms) - min(t_ms) AS span_ms, sum(CAST(count AS DECIMAL(38,0))) FILTER (WHERE count > 1) AS expanded
FROM requests WHERE experiment = `+x)
	if err != nil {
		return err
	}
	var s, total sql.NullFloat64
	if err := r.Querier().QueryRow(`SELECT span_ms, expanded::DOUBLE FROM _remote_span`).Scan(&s, &total); err != nil {
		return err
	}
	if err := span(s); err != nil || !expand || !total.Valid || total.Float64 <= maxExpanded {
		return err
	}
	if err := r.reduce("_remote_largest", "run VARCHAR, seq BIGINT, line BIGINT, count BIGINT",
		`SELECT run, seq, line, count FROM requests WHERE experiment = `+x+` ORDER BY count DESC, run, seq LIMIT 1`); err != nil {
		return err
	}
	var run string
	var seq, line, count int64
	if err := r.Querier().QueryRow(`SELECT run, seq, line, count FROM _remote_largest`).Scan(&run, &seq, &line, &count); err != nil {
		return err
	}
	return expansionError(exp, analysis, total.Float64, run, seq, line, count)
}

// judgeStep is _judge_steps in Spark SQL, without the steps a side's span
// holds but no row does (added in DuckDB): one row per side and step with
// a row. A row's step is floor(t_ms / step_ms) for duration steps (the
// same IEEE division; rows without t_ms skipped), and its position in
// (run, seq) order within its side div step_n for count steps, the
// positions counted per (run, seq div 65536) block as windowsStep counts
// them. The rows are counted per (side, step, µs), and the quantiles
// picked by rank from those counts (quantileSums). Where the local path
// writes rows out one per request (judgeShort), a row of count 0 adds no
// latency to the sum or the max, as there; else it does, as
// _judge_steps_counted's.
func judgeStep(exp string, o JudgeOptions, eg engineGroup, needQ bool) string {
	// k: the side and its group's columns (g0, g1, ...: eg's Spark SQL)
	k, gs, on := "role"+eg.keys(), eg.sel(), "s.role = o.role"+eg.on("s", "o")
	rows := `SELECT role, run, seq, t_ms, count, outcome = 'ok' AS ok, CAST(round(latency_ms * 1000D) AS BIGINT) AS lat_us` + gs + `
FROM requests WHERE experiment = ` + engine.String(exp) + ` AND role IN ('control', 'experiment')`
	var p string
	if o.StepN > 0 {
		sk := "s." + strings.ReplaceAll(k, ", ", ", s.")
		p = `b AS (SELECT ` + k + `, run, seq div 65536 AS b, count(*) AS n FROM s GROUP BY ` + k + `, run, seq div 65536),
o AS (SELECT ` + k + `, run, b, sum(n) OVER (PARTITION BY ` + k + ` ORDER BY run, b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - n AS before FROM b),
p AS (SELECT s.*, (o.before + row_number() OVER (PARTITION BY ` + sk + `, s.run, s.seq div 65536 ORDER BY s.seq) - 1) div ` + engine.Int(o.StepN) + ` AS w
      FROM s JOIN o ON ` + on + ` AND s.run = o.run AND s.seq div 65536 = o.b)`
	} else {
		rows += " AND t_ms IS NOT NULL"
		p = `p AS (SELECT *, CAST(floor(t_ms / ` + engine.Double(msOf(o.Step)) + `) AS BIGINT) AS w FROM s)`
	}
	kept := "true" // the latencies the sum and the max read
	if o.judgeShort() {
		kept = "c > 0"
	}
	latN := "sum(c) FILTER (WHERE lat_us IS NOT NULL)"
	if o.judgeShort() {
		latN = "coalesce(" + latN + ", 0)"
	}
	return `WITH s AS (` + rows + `),
` + p + `,
h AS (SELECT ` + k + `, w, lat_us, sum(count) AS c, coalesce(sum(count) FILTER (WHERE ok), 0) AS c_ok FROM p GROUP BY ` + k + `, w, lat_us)
` + quantileSums(k+", w", `sum(c) AS requests, sum(c_ok) AS ok, `+latN+` AS lat_n,
       sum(CAST(lat_us AS DECIMAL(38,0)) * c) FILTER (WHERE `+kept+`) AS lat_sum`, kept, needQ)
}

// judgeStepsOn runs judgeStep and makes the in-memory database's
// _judge_steps read its rows, each side's span of steps filled in as
// locally, for these arguments only: judge_by and judge then run
// unchanged. A call with other arguments raises an error rather than read
// steps computed for others (the group is not compared: with --by it is an
// expression over the columns of requests, which the table lacks).
func (r *Remote) judgeStepsOn(exp string, o JudgeOptions, eg engineGroup) error {
	needQ := slices.ContainsFunc(o.Metrics, func(m MetricJudge) bool { return metricThousandths[m.Name] > 0 })
	// the group: its columns g0, g1, ... as byColumns types them, the
	// key judge_by makes of them, {'v': grp} (judge's is true)
	gcols, gk, gon := "", "true", ""
	for i, f := range o.By {
		gcols += fmt.Sprintf("g%d %s, ", i, eg.types[i])
		if i == 0 {
			gk = ""
		} else {
			gk += ", "
		}
		gk += fmt.Sprintf("%s: g.g%d", sqllit.String(f), i)
		gon += fmt.Sprintf(" AND g.g%d IS NOT DISTINCT FROM span.g%d", i, i)
	}
	if len(o.By) > 0 {
		gk = "{'v': {" + gk + "}}" // judge_by's key, {'v': grp}; judge's is true
	}
	if err := r.reduce("_remote_judge_raw", "role VARCHAR, "+gcols+"w BIGINT, requests BIGINT, ok BIGINT, lat_n HUGEINT, lat_sum HUGEINT, q1 BIGINT, q2 BIGINT, q3 BIGINT, q4 BIGINT, q5 BIGINT, q6 BIGINT",
		judgeStep(exp, o, eg, needQ)); err != nil {
		return err
	}
	keys := "role" // the side and the group, for each side's span of steps
	for i := range o.By {
		keys += fmt.Sprintf(", g%d", i)
	}
	latN := "HUGEINT" // _judge_steps_counted's sum, _judge_steps_each's count
	if o.judgeShort() {
		latN = "BIGINT"
	}
	if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE _remote_judge_steps AS
WITH span AS (SELECT `+keys+`, unnest(range(min(w), max(w) + 1)) AS w FROM _remote_judge_raw GROUP BY `+keys+`)
SELECT `+strings.ReplaceAll(gk, "g.g", "span.g")+` AS gk, span.role, span.w, coalesce(g.requests, 0) AS requests, g.ok, g.lat_n::`+latN+` AS lat_n, g.lat_sum,
       CASE WHEN g.q6 IS NOT NULL THEN [g.q1, g.q2, g.q3, g.q4, g.q5, g.q6] END AS lat_q
FROM span LEFT JOIN _remote_judge_raw g ON g.role = span.role AND g.w = span.w`+gon); err != nil {
		return err
	}
	n, ms := "NULL", duckDouble(msOf(o.Step))
	if o.StepN > 0 {
		n = fmt.Sprint(o.StepN)
	}
	_, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO _judge_steps(exp, grp, step_ms, step_n, need_q) AS TABLE
    SELECT * FROM _remote_judge_steps
    WHERE CASE WHEN exp IS DISTINCT FROM `+sqllit.String(exp)+`
                    OR step_n::BIGINT IS DISTINCT FROM `+n+`
                    OR (step_n IS NULL AND step_ms::DOUBLE IS DISTINCT FROM `+ms+`)
                    OR need_q IS DISTINCT FROM `+fmt.Sprint(needQ)+`
               THEN error('_judge_steps: the engine''s steps were computed for other arguments') ELSE true END`)
	return err
}

// quantileSums is, per keys, the sums over the counts c (c_ok: the ok
// ones) per (keys, lat_us) of CTE h and the nearest-rank quantiles q1..q6
// (p50 p90 p95 p99 p99.9 max; NULL without needQ) in Spark SQL, in one
// read of h: sums is the list of sums over h's rows (their names the
// step's), latency-less rows included. A quantile is the smallest latency
// whose running count c reaches max(1, ceil(q n)), n the count of rows
// with a latency and q in thousandths, decided as c >= 1 and 1000 c >= q n
// in DECIMAL (exact, as the local DECIMAL ceil); the max is over h's
// latencies where kept holds. The running sum is partitioned by keys (no
// window over all rows), and the latency-less rows sort first and add 0.
// One read: Spark inlines a CTE into each of its references, and the sums
// and picks read apart computed h three times (issue 36).
func quantileSums(keys, sums, kept string, needQ bool) string {
	q := ""
	if !needQ {
		for i := 1; i <= 6; i++ {
			q += fmt.Sprintf(", CAST(NULL AS BIGINT) AS q%d", i)
		}
		return "SELECT " + keys + ", " + sums + q + "\nFROM h GROUP BY " + keys
	}
	for i, k := range []int64{500, 900, 950, 990, 999} {
		q += fmt.Sprintf(`,
       min(lat_us) FILTER (WHERE lat_us IS NOT NULL AND cum >= 1 AND CAST(cum AS DECIMAL(20,0)) * 1000 >= CAST(ln AS DECIMAL(20,0)) * %d) AS q%d`, k, i+1)
	}
	return "SELECT " + keys + ", " + sums + q + `,
       max(lat_us) FILTER (WHERE lat_us IS NOT NULL AND (` + kept + `)) AS q6
FROM (SELECT *, sum(CASE WHEN lat_us IS NOT NULL THEN c ELSE 0L END) OVER (PARTITION BY ` + keys + ` ORDER BY lat_us ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cum,
             sum(CASE WHEN lat_us IS NOT NULL THEN c END) OVER (PARTITION BY ` + keys + `) AS ln
      FROM h) r
GROUP BY ` + keys
}
