package analyze

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// ThresholdsOn is Thresholds (cumulative, or with Window) with the
// per-request work on r's engine (docs/scale.md): the runs' rows and the
// experiment's k6 metric definitions are counted or copied first, for the
// checks Thresholds makes; then each run's clock, each bucket's sums per
// threshold but a percentile, the failures per bucket and, for percentiles
// (and avg), each bucket's samples counted per distinct value come back.
// TEMP macros over those rows shadow _th_runs, _th_bucket_values and
// _th_failed_buckets, so that the library's thresholds and
// threshold_windows finish unchanged. Thresholds on request metrics only,
// with no tag but status and expected_response; the rest is refused by
// name. A trend's avg reads the exact sum of its DOUBLE values as
// DECIMAL(38,9), which DuckDB takes from the samples counted per distinct
// value (the percentiles' step): no sum is computed on the engine.
func ThresholdsOn(r *Remote, o ThresholdsOptions) (*Result, error) {
	db := r.Querier()
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, err
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	runs, err := r.runRows(e.Name)
	if err != nil {
		return nil, err
	}
	if err := r.checkExpansion(e.Name, "thresholds"); err != nil {
		return nil, err
	}
	points, err := r.k6Events(e.Name)
	if err != nil {
		return nil, err
	}
	if err := r.thRuns(e.Name, o); err != nil {
		return nil, err
	}
	ts, specs, err := o.specs(db, e.Name, false)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		if t.Base == "http_req_duration" {
			if err := hypothesis.RequireLatencyCounted(param.Errorf("threshold", "threshold %s", t.String()), "judge http_req_failed or http_reqs instead", e.Name, runs.runs); err != nil {
				return nil, err
			}
			break
		}
	}
	var rows int64
	for _, x := range runs.runs {
		rows += x.Rows
	}
	notes, err := timeNotesOf(db, e.Name, o, rows-runs.timed, runs.timed)
	if err != nil {
		return nil, err
	}
	if err := r.thresholdsOnEngine(ts, points); err != nil {
		return nil, err
	}
	if err := r.thSteps(e.Name, o, ts, specs); err != nil {
		return nil, err
	}
	return o.finish(db, e.Name, specs, notes)
}

// thresholdsOnEngine refuses what the reduce steps do not compute: a
// metric other than the request rows' three, one that k6 points also
// sample and a tag read from attrs.
func (r *Remote) thresholdsOnEngine(ts []Threshold, points []string) error {
	for _, t := range ts {
		switch {
		case !slices.Contains(requestMetrics, t.Base) || slices.Contains(points, t.Base):
			return r.NotOnEngine("thresholds on "+t.Base, "k6's points (events) are not read as samples on the engine, only the request rows' http_req_duration, http_req_failed and http_reqs")
		case slices.ContainsFunc(t.Tags, func(g Tag) bool { return g.K != "status" && g.K != "expected_response" }):
			return r.NotOnEngine("thresholds with tags other than status and expected_response ("+t.Metric+")", "a tag read from attrs has no reduce steps")
		}
	}
	return nil
}

// checkExpansion is checkExpansion over the engine.
func (r *Remote) checkExpansion(exp, analysis string) error {
	lit := engine.String(exp)
	if err := r.reduce("_remote_expanded", "total DOUBLE", `SELECT CAST(sum(count) AS DOUBLE) AS total FROM requests WHERE experiment = `+lit+` AND count > 1`); err != nil {
		return err
	}
	var total sql.NullFloat64
	if err := r.db.QueryRowContext(r.ctx, `SELECT total FROM _remote_expanded`).Scan(&total); err != nil {
		return err
	}
	if !total.Valid || total.Float64 <= maxExpanded {
		return nil
	}
	if err := r.reduce("_remote_expanded_top", "run VARCHAR, seq BIGINT, line BIGINT, count BIGINT",
		`SELECT run, seq, line, count FROM requests WHERE experiment = `+lit+` ORDER BY count DESC, run, seq LIMIT 1`); err != nil {
		return err
	}
	var run string
	var seq, line, count int64
	if err := r.db.QueryRowContext(r.ctx, `SELECT run, seq, line, count FROM _remote_expanded_top`).Scan(&run, &seq, &line, &count); err != nil {
		return err
	}
	return expansionError(exp, analysis, total.Float64, run, seq, line, count)
}

// k6Events copies the experiment's k6 metric definitions (k6_metric
// events: one per metric) into the in-memory events, with one stand-in row
// per metric k6 points sample (metricKinds reads their names only), and
// returns those names.
func (r *Remote) k6Events(exp string) ([]string, error) {
	if err := r.eventsView(); err != nil {
		return nil, err
	}
	lit := engine.String(exp)
	if err := r.reduce("_remote_k6_events", "run VARCHAR, seq BIGINT, type VARCHAR, t_ms DOUBLE, subject VARCHAR, state VARCHAR, attrs VARCHAR, file_id INTEGER, line BIGINT", `
SELECT run, seq, type, t_ms, subject, state, attrs, file_id, line FROM events WHERE experiment = `+lit+` AND type = 'k6_metric'
UNION ALL
SELECT '', 0L, 'k6_point', CAST(NULL AS DOUBLE), subject, CAST(NULL AS STRING), CAST(NULL AS STRING), 0, 0L
FROM (SELECT DISTINCT subject FROM events WHERE experiment = `+lit+` AND type = 'k6_point' AND subject IS NOT NULL)`); err != nil {
		return nil, err
	}
	if _, err := r.db.ExecContext(r.ctx, `INSERT INTO events (experiment, run, seq, type, t_ms, subject, state, attrs, file_id, line)
		SELECT `+sqllit.String(exp)+`, run, seq, type, t_ms, subject, state, attrs::JSON, file_id, line FROM _remote_k6_events`); err != nil {
		return nil, err
	}
	var points []string
	rows, err := r.db.QueryContext(r.ctx, `SELECT subject FROM _remote_k6_events WHERE type = 'k6_point' ORDER BY subject`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		points = append(points, s)
	}
	return points, rows.Err()
}

// thRuns is the step of _th_runs: per run, its first send or k6 point and
// its last end or point (as _th_requests and _th_points read them, in ns).
func (r *Remote) thRuns(exp string, o ThresholdsOptions) error {
	lit := engine.String(exp)
	err := r.reduce("_remote_th_runs", "run VARCHAR, lo BIGINT, hi BIGINT", `
WITH q AS (SELECT run, CAST(round(t_ms * 1000000D) AS BIGINT) AS send_ns,
                  CAST(round(t_ms * 1000000D) AS BIGINT) + coalesce(CAST(round(latency_ms * 1000000D) AS BIGINT), 0L) AS end_ns
           FROM requests WHERE experiment = `+lit+` AND t_ms IS NOT NULL),
p AS (SELECT f.run, CAST(round(e.t_ms * 1000000D) AS BIGINT) AS at_ns
      FROM events e
      JOIN (SELECT DISTINCT run, file_id FROM requests
            WHERE experiment = `+lit+`
              AND file_id IN (SELECT file_id FROM events WHERE experiment = `+lit+` AND type = 'k6_point')) f
        ON e.file_id = f.file_id AND (e.run = '' OR e.run = f.run)
      WHERE e.experiment = `+lit+` AND e.type = 'k6_point' AND e.t_ms IS NOT NULL)
SELECT run, min(lo) AS lo, max(hi) AS hi
FROM (SELECT run, min(send_ns) AS lo, max(end_ns) AS hi FROM q GROUP BY run
      UNION ALL
      SELECT run, min(at_ns), max(at_ns) FROM p GROUP BY run)
GROUP BY run`)
	if err != nil {
		return err
	}
	return r.shadow(`_th_runs(exp, duration_ms) AS TABLE
    SELECT run, lo AS start_ns, hi - lo AS last_ns, coalesce(round(duration_ms * 1e6)::BIGINT, hi - lo) AS dur_ns
    FROM _remote_th_runs
    WHERE CASE WHEN exp IS DISTINCT FROM ` + sqllit.String(exp) + `
               THEN error('_th_runs: the engine''s runs were computed for another experiment') ELSE true END`)
}

// thArgs are the arguments after exp and specs with which o.sql calls the
// library, as _th_grid takes them: every_ms, window_ms, sliding,
// duration_ms.
func (o ThresholdsOptions) thArgs() (every, window, sliding, duration string) {
	e := o.Every
	if e == 0 {
		e = DefaultEvery
	}
	window = "NULL"
	if o.Window > 0 {
		window = sqllit.Ms(o.Window)
	}
	return sqllit.Ms(e), window, fmt.Sprint(o.Sliding), sqllit.MsOrNull(o.Duration)
}

// thSteps runs the buckets' steps over each run's grid (_th_grid, read in
// DuckDB from the engine's runs) and shadows the macros that read them.
func (r *Remote) thSteps(exp string, o ThresholdsOptions, ts []Threshold, specs string) error {
	every, window, sliding, duration := o.thArgs()
	rows, err := r.db.QueryContext(r.ctx, `SELECT g.run, r.start_ns, g.g, g.last_lo, g.end_ns
		FROM _th_grid(?, `+every+`, `+window+`, `+sliding+`, `+duration+`) g JOIN _th_runs(?, `+duration+`) r USING (run) ORDER BY g.run`, exp, exp)
	if err != nil {
		return err
	}
	var grid []string
	for rows.Next() {
		var run string
		var start, g, end int64
		var lastLo sql.NullInt64
		if err := rows.Scan(&run, &start, &g, &lastLo, &end); err != nil {
			rows.Close()
			return err
		}
		last := "CAST(NULL AS BIGINT)"
		if lastLo.Valid {
			last = engine.Int(lastLo.Int64)
		}
		grid = append(grid, "("+engine.String(run)+", "+engine.Int(start)+", "+engine.Int(g)+", "+last+", "+engine.Int(end)+")")
	}
	err = rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	q := thRows(exp, grid)
	if err := r.reduce("_remote_th_buckets", thBucketCols, q+"\n"+thBucketSums(ts)); err != nil {
		return err
	}
	if err := r.reduce("_remote_th_failed", "run VARCHAR, t BIGINT, n BIGINT", q+`
SELECT run, c AS t, sum(count) AS n FROM q WHERE outcome <> 'ok' GROUP BY run, c`); err != nil {
		return err
	}
	if err := r.reduce("_remote_th_values", "run VARCHAR, id INTEGER, t BIGINT, v DOUBLE, w BIGINT", q+"\n"+thValueCounts(ts)); err != nil {
		return err
	}
	grid2 := `exp IS DISTINCT FROM ` + sqllit.String(exp) + ` OR duration_ms::DOUBLE IS DISTINCT FROM ` + duration +
		`::DOUBLE OR every_ms::DOUBLE IS DISTINCT FROM ` + every + `::DOUBLE OR window_ms::DOUBLE IS DISTINCT FROM ` + window +
		`::DOUBLE OR sliding IS DISTINCT FROM ` + sliding
	for _, m := range []string{
		// a percentile's rows are its values' counts (v, its least and
		// greatest, k and n the count), every other threshold's one row
		// per bucket (v NULL)
		`_th_bucket_values(exp, specs, every_ms, window_ms, sliding, duration_ms) AS TABLE
    SELECT b.run, b.id, b.t, NULL::DOUBLE AS v, b.k, b.n, b.trues, coalesce(b.dsum, d.dsum) AS dsum, b.vmin, b.vmax,
           NULL::STRUCT(t BIGINT, ord BIGINT, v DOUBLE) AS last
    FROM _remote_th_buckets b
    LEFT JOIN (SELECT run, id, t, sum(v::DECIMAL(38,9) * w) AS dsum FROM _remote_th_values
               WHERE id IN (` + thIDs(ts, "avg") + `) GROUP BY ALL) d USING (run, id, t)
    WHERE CASE WHEN ` + grid2 + ` THEN error('_th_bucket_values: the engine''s buckets were computed for other arguments') ELSE true END
    UNION ALL
    SELECT run, id, t, v, w, w::HUGEINT, NULL::HUGEINT, NULL::DECIMAL(38,9), v, v, NULL
    FROM _remote_th_values
    WHERE id IN (` + thIDs(ts, "p", "med") + `)
      AND CASE WHEN ` + grid2 + ` THEN error('_th_bucket_values: the engine''s buckets were computed for other arguments') ELSE true END`,
		`_th_failed_buckets(exp, every_ms, window_ms, sliding, duration_ms) AS TABLE
    SELECT run, t, n FROM _remote_th_failed
    WHERE CASE WHEN ` + grid2 + ` THEN error('_th_failed_buckets: the engine''s buckets were computed for other arguments') ELSE true END`,
	} {
		if err := r.shadow(m); err != nil {
			return err
		}
	}
	return nil
}

const thBucketCols = "run VARCHAR, id INTEGER, t BIGINT, k BIGINT, n HUGEINT, trues HUGEINT, dsum DECIMAL(38,9), vmin DOUBLE, vmax DOUBLE"

// thRows is the experiment's timed request rows in Spark SQL (WITH ... q):
// t, the end in ns of test time (as _th_samples: the end less the run's
// start), and c, its bucket's end (_th_bucket, over the run's grid).
func thRows(exp string, grid []string) string {
	if len(grid) == 0 {
		grid = []string{"(CAST(NULL AS STRING), 0L, 1L, CAST(NULL AS BIGINT), 0L)"}
	}
	return `WITH g AS (SELECT * FROM VALUES ` + strings.Join(grid, ", ") + ` AS g(run, start_ns, g, last_lo, end_ns)),
s AS (SELECT r.run, r.count, r.outcome, r.status, r.latency_ms AS v,
             CAST(round(r.t_ms * 1000000D) AS BIGINT) + coalesce(CAST(round(r.latency_ms * 1000000D) AS BIGINT), 0L) - g.start_ns AS t,
             g.g, g.last_lo, g.end_ns
      FROM requests r JOIN g ON r.run = g.run
      WHERE r.experiment = ` + engine.String(exp) + ` AND r.t_ms IS NOT NULL),
q AS (SELECT run, count, outcome, status, v, t,
             CASE WHEN t <= 0 THEN t
                  WHEN t <= last_lo THEN least((t + g - 1) div g * g, last_lo)
                  ELSE least((t + g - 1) div g * g, end_ns) END AS c
      FROM s)`
}

// thTags is t's tags as a Spark SQL condition over q's rows: as
// _th_req_tag, the status as text, expected_response as outcome = 'ok'
// ('true' or 'false'; no sample without an outcome); "true" without tags.
func thTags(t Threshold) string {
	cond := "true"
	for _, g := range t.Tags {
		v := "CAST(status AS STRING)"
		if g.K == "expected_response" {
			v = "CASE WHEN outcome IS NOT NULL THEN CAST(outcome = 'ok' AS STRING) END"
		}
		cond += " AND coalesce(" + v + " = " + engine.String(g.V) + ", false)"
	}
	return cond
}

// thBucketSums is _th_bucket_values's select over q for every threshold
// but a percentile (whose rows are its values' counts, thValueCounts), one
// branch per threshold: a trend's samples are its rows with a latency (a
// row of count n is n samples; their least and greatest latency whatever
// the threshold's aggregation), a rate's its rows with an outcome, a
// counter's every row.
func thBucketSums(ts []Threshold) string {
	var parts []string
	for i, t := range ts {
		id := fmt.Sprint(i + 1)
		nul := "CAST(NULL AS DOUBLE)"
		switch t.Base {
		case "http_req_duration":
			if t.Agg == "p" || t.Agg == "med" {
				continue
			}
			parts = append(parts, `SELECT run, `+id+` AS id, c AS t, sum(count) AS k, sum(count) AS n, CAST(NULL AS BIGINT) AS trues,
       CAST(NULL AS DECIMAL(38,9)) AS dsum, min(v) AS vmin, max(v) AS vmax
FROM q WHERE v IS NOT NULL AND count >= 1 AND `+thTags(t)+` GROUP BY run, c`)
		case "http_req_failed":
			parts = append(parts, `SELECT run, `+id+` AS id, c AS t, count(*) AS k, sum(count) AS n,
       sum(CASE WHEN outcome <> 'ok' THEN count ELSE 0L END) AS trues, CAST(NULL AS DECIMAL(38,9)) AS dsum,
       `+nul+` AS vmin, `+nul+` AS vmax
FROM q WHERE outcome IS NOT NULL AND `+thTags(t)+` GROUP BY run, c`)
		default: // http_reqs
			parts = append(parts, `SELECT run, `+id+` AS id, c AS t, count(*) AS k, sum(count) AS n, CAST(NULL AS BIGINT) AS trues,
       sum(CAST(count AS DECIMAL(38,9))) AS dsum, `+nul+` AS vmin, `+nul+` AS vmax
FROM q WHERE `+thTags(t)+` GROUP BY run, c`)
		}
	}
	if len(parts) == 0 {
		return `SELECT CAST(NULL AS STRING) AS run, 0 AS id, 0L AS t, 0L AS k, 0L AS n, CAST(NULL AS BIGINT) AS trues,
       CAST(NULL AS DECIMAL(38,9)) AS dsum, CAST(NULL AS DOUBLE) AS vmin, CAST(NULL AS DOUBLE) AS vmax FROM q WHERE false`
	}
	return strings.Join(parts, "\nUNION ALL\n")
}

// thIDs lists the ids of ts's thresholds on http_req_duration with one of
// aggs (0, no id, when none).
func thIDs(ts []Threshold, aggs ...string) string {
	ids := []string{"0"}
	for i, t := range ts {
		if t.Base == "http_req_duration" && slices.Contains(aggs, t.Agg) {
			ids = append(ids, fmt.Sprint(i+1))
		}
	}
	return strings.Join(ids, ", ")
}

// thValueCounts is the samples of the percentiles and of avg over q: per
// (run, threshold, bucket, distinct latency) how many; nothing for other
// thresholds. They are the percentiles' rows of _th_bucket_values; avg
// sums them as DECIMAL(38,9).
func thValueCounts(ts []Threshold) string {
	var parts []string
	for i, t := range ts {
		if t.Base == "http_req_duration" && (t.Agg == "p" || t.Agg == "med" || t.Agg == "avg") {
			parts = append(parts, `SELECT run, `+fmt.Sprint(i+1)+` AS id, c AS t, v, sum(count) AS w FROM q WHERE v IS NOT NULL AND count >= 1 AND `+thTags(t)+` GROUP BY run, c, v`)
		}
	}
	if len(parts) == 0 {
		return `SELECT CAST(NULL AS STRING) AS run, 0 AS id, 0L AS t, CAST(NULL AS DOUBLE) AS v, 0L AS w FROM q WHERE false`
	}
	return strings.Join(parts, "\nUNION ALL\n")
}
