package analyze

import (
	"database/sql"
	"strings"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// AmplificationOn is Amplification with the per-request work on r's
// engine in two reduce steps: the calls summed per (run, tick)
// (_amplification_ticks: a shuffle of tick keys, one row per run and tick
// back) and the dropped calls per run (_amplification_dropped: the failed
// calls that say they were not retried, and those that do not say, whose
// req has no later attempt, found by a shuffle of their reqs). TEMP macros
// of those names read the rows, and the library's amplification finishes
// (the runs' parameters, from the in-memory runs and experiments tables,
// the peaks, totals and rates). With --by, the group's fields are one
// more key of both steps (engine_by.go).
func AmplificationOn(r *Remote, o AmplificationOptions) (*Result, error) {
	db := r.Querier()
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, err
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	eg, err := r.groupOn("amplification", db, e.Name, o.By)
	if err != nil {
		return nil, err
	}
	ticks, err := r.amplificationTicksStep(e.Name, eg, o)
	if err != nil {
		return nil, err
	}
	if err := r.reduce("_remote_amp_ticks_raw", "run VARCHAR"+eg.cols()+", tick_no BIGINT, first_seq BIGINT, requests BIGINT, calls BIGINT, succeeded BIGINT, fault_calls BIGINT", ticks); err != nil {
		return nil, err
	}
	if err := r.reduce("_remote_amp_dropped_raw", "run VARCHAR"+eg.cols()+", dropped BIGINT", amplificationDroppedStep(e.Name, eg)); err != nil {
		return nil, err
	}
	if err := r.amplificationMacros(e.Name, eg, o); err != nil {
		return nil, err
	}
	return amplificationQuery(db, e, eg.g, o)
}

// amplificationTicksStep is _amplification_ticks in Spark SQL. Each run's
// tick and fault window are _amplification_params's, read from the
// in-memory database; as in _amplification_calls, when every run asked for
// has the same ones they are constants over every row of the experiment,
// else each row is joined to its run's (runs not asked for have none).
func (r *Remote) amplificationTicksStep(exp string, eg engineGroup, o AmplificationOptions) (string, error) {
	rows, err := r.Querier().Query(`SELECT run, tick, from_ms, to_ms FROM _amplification_params(?, ?, ?, ?, ?, ?) ORDER BY run`,
		append([]any{exp}, o.args()...)...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var vals []string
	same := map[string]bool{}
	for rows.Next() {
		var run string
		var tick, from, to sql.NullFloat64
		if err := rows.Scan(&run, &tick, &from, &to); err != nil {
			return "", err
		}
		p := sparkDouble(tick) + ", " + sparkDouble(from) + ", " + sparkDouble(to)
		same[p] = true
		vals = append(vals, "("+engine.String(run)+", "+p+")")
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	src := `(SELECT run, seq, attempt, t_ms, count, outcome` + eg.sel() + ` FROM requests WHERE experiment = ` + engine.String(exp) + `) q`
	from := src + ` CROSS JOIN (SELECT * FROM VALUES (CAST(NULL AS DOUBLE), CAST(NULL AS DOUBLE), CAST(NULL AS DOUBLE)) AS p(tick, from_ms, to_ms) WHERE false) p`
	switch {
	case len(same) == 1:
		for p := range same {
			from = src + ` CROSS JOIN (SELECT * FROM VALUES (` + p + `) AS p(tick, from_ms, to_ms)) p`
		}
	case len(same) > 1:
		from = src + ` JOIN (SELECT * FROM VALUES ` + strings.Join(vals, ", ") + ` AS p(run, tick, from_ms, to_ms)) p ON p.run = q.run`
	}
	kq := eg.keysOf("q")
	return `SELECT q.run` + kq + `, CAST(floor(q.t_ms / p.tick) AS BIGINT) AS tick_no, min(q.seq) AS first_seq,
       coalesce(sum(q.count) FILTER (WHERE q.attempt = 0), 0L) AS requests, sum(q.count) AS calls,
       coalesce(sum(q.count) FILTER (WHERE q.outcome = 'ok'), 0L) AS succeeded,
       coalesce(sum(q.count) FILTER (WHERE q.t_ms >= p.from_ms AND q.t_ms < p.to_ms), 0L) AS fault_calls
FROM ` + from + `
GROUP BY q.run` + kq + `, CAST(floor(q.t_ms / p.tick) AS BIGINT)`, nil
}

// sparkDouble is a DOUBLE literal, or a typed NULL.
func sparkDouble(f sql.NullFloat64) string {
	if !f.Valid {
		return "CAST(NULL AS DOUBLE)"
	}
	return engine.Double(f.Float64)
}

// amplificationDroppedStep is _amplification_dropped in Spark SQL: failed
// calls with retried false, and failed calls with retried NULL that are
// their req's last attempt (a NULL req is one req, as locally).
func amplificationDroppedStep(exp string, eg engineGroup) string {
	k := eg.keys()
	return `WITH q AS (SELECT run` + eg.sel() + `, req, attempt, count, outcome, retried FROM requests WHERE experiment = ` + engine.String(exp) + `),
unsaid AS (SELECT run` + k + `, req, attempt, count FROM q WHERE outcome IS NOT NULL AND outcome <> 'ok' AND retried IS NULL),
later AS (SELECT q.run` + eg.keysOf("q") + `, q.req, max(q.attempt) AS last_attempt
          FROM q JOIN (SELECT DISTINCT run` + k + `, req FROM unsaid) u ON u.run = q.run` + eg.on("u", "q") + ` AND u.req <=> q.req
          WHERE q.attempt > 0 GROUP BY q.run` + eg.keysOf("q") + `, q.req),
later_neg AS (SELECT q.run` + eg.keysOf("q") + `, q.req, max(q.attempt) AS last_attempt
              FROM q JOIN (SELECT DISTINCT run` + k + `, req FROM unsaid WHERE attempt < 0) u ON u.run = q.run` + eg.on("u", "q") + ` AND u.req <=> q.req
              GROUP BY q.run` + eg.keysOf("q") + `, q.req)
SELECT run` + k + `, sum(count) AS dropped
FROM (SELECT run` + k + `, count FROM q WHERE outcome IS NOT NULL AND outcome <> 'ok' AND NOT retried
      UNION ALL
      SELECT u.run` + eg.keysOf("u") + `, u.count
      FROM unsaid u
      LEFT JOIN later l ON l.run = u.run` + eg.on("l", "u") + ` AND l.req <=> u.req
      LEFT JOIN later_neg n ON n.run = u.run` + eg.on("n", "u") + ` AND n.req <=> u.req
      WHERE u.attempt >= coalesce(n.last_attempt, l.last_attempt, u.attempt))
GROUP BY run` + k
}

// amplificationMacros makes the in-memory database's _amplification_ticks
// and _amplification_dropped read the engine's rows, for exp and o's
// parameters only (a call with others raises an error).
func (r *Remote) amplificationMacros(exp string, eg engineGroup, o AmplificationOptions) error {
	args := o.args()
	lit := func(v any) string {
		switch x := v.(type) {
		case string:
			return sqllit.String(x)
		case float64:
			return duckDouble(x)
		}
		return "NULL"
	}
	other := `THEN error('amplification: the engine''s rows were computed for other arguments') ELSE true END`
	grp := ""
	if len(eg.fields) == 0 {
		grp = ` OR grp IS DISTINCT FROM true`
	}
	gk := eg.vk()
	for _, q := range []string{
		`CREATE OR REPLACE TEMP TABLE _remote_amp_ticks AS
    SELECT run, ` + gk + ` AS gk, tick_no, first_seq, requests, calls, succeeded, fault_calls FROM _remote_amp_ticks_raw`,
		`CREATE OR REPLACE TEMP TABLE _remote_amp_dropped AS SELECT run, ` + gk + ` AS gk, dropped FROM _remote_amp_dropped_raw`,
		`CREATE OR REPLACE TEMP MACRO _amplification_ticks(exp, grp, runs_glob, tick_ms, fault_from_ms, fault_to_ms, normal_rate) AS TABLE
    SELECT * FROM _remote_amp_ticks
    WHERE CASE WHEN exp IS DISTINCT FROM ` + sqllit.String(exp) + grp + `
                    OR runs_glob IS DISTINCT FROM ` + lit(args[0]) + ` OR tick_ms::DOUBLE IS DISTINCT FROM ` + lit(args[1]) + `
                    OR fault_from_ms::DOUBLE IS DISTINCT FROM ` + lit(args[2]) + ` OR fault_to_ms::DOUBLE IS DISTINCT FROM ` + lit(args[3]) + `
                    OR normal_rate::DOUBLE IS DISTINCT FROM ` + lit(args[4]) + `
               ` + other,
		`CREATE OR REPLACE TEMP MACRO _amplification_dropped(exp, grp) AS TABLE
    SELECT * FROM _remote_amp_dropped
    WHERE CASE WHEN exp IS DISTINCT FROM ` + sqllit.String(exp) + grp + ` ` + other,
	} {
		if _, err := r.db.ExecContext(r.ctx, q); err != nil {
			return err
		}
	}
	return nil
}
