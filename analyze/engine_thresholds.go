package analyze

import (
	"database/sql"
	"fmt"
	"math"
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
// threshold (a percentile's samples counted per cell of its value, an
// avg's exact sum as integers of 1e-9 ms) and the failures per bucket come
// back, and, for a percentile, the printed window's two values picked by
// rank and its buckets counted finer (thPrinted). TEMP macros over those
// rows shadow _th_runs, _th_bucket_values and _th_failed_buckets, so that
// the library's thresholds and threshold_windows finish unchanged.
// Thresholds on request metrics only, with no tag but status and
// expected_response; the rest is refused by name.
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
// its last end or point (as _th_requests and _th_points read them, in ns),
// and the least and greatest latency of its timed samples (vlo, vhi: the
// range a percentile's first pick splits, thPick).
func (r *Remote) thRuns(exp string, o ThresholdsOptions) error {
	lit := engine.String(exp)
	err := r.reduce("_remote_th_runs", "run VARCHAR, lo BIGINT, hi BIGINT, vlo DOUBLE, vhi DOUBLE", `
WITH q AS (SELECT run, CAST(round(t_ms * 1000000D) AS BIGINT) AS send_ns,
                  CAST(round(t_ms * 1000000D) AS BIGINT) + coalesce(CAST(round(latency_ms * 1000000D) AS BIGINT), 0L) AS end_ns,
                  CASE WHEN count >= 1 THEN latency_ms END AS v
           FROM requests WHERE experiment = `+lit+` AND t_ms IS NOT NULL),
p AS (SELECT f.run, CAST(round(e.t_ms * 1000000D) AS BIGINT) AS at_ns
      FROM events e
      JOIN (SELECT DISTINCT run, file_id FROM requests
            WHERE experiment = `+lit+`
              AND file_id IN (SELECT file_id FROM events WHERE experiment = `+lit+` AND type = 'k6_point')) f
        ON e.file_id = f.file_id AND (e.run = '' OR e.run = f.run)
      WHERE e.experiment = `+lit+` AND e.type = 'k6_point' AND e.t_ms IS NOT NULL)
SELECT run, min(lo) AS lo, max(hi) AS hi, min(vlo) AS vlo, max(vhi) AS vhi
FROM (SELECT run, min(send_ns) AS lo, max(end_ns) AS hi, min(v) AS vlo, max(v) AS vhi FROM q GROUP BY run
      UNION ALL
      SELECT run, min(at_ns), max(at_ns), CAST(NULL AS DOUBLE), CAST(NULL AS DOUBLE) FROM p GROUP BY run)
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
	rows, err := r.db.QueryContext(r.ctx, `SELECT g.run, r.start_ns, g.g, g.last_lo, g.end_ns, x.vlo, x.vhi
		FROM _th_grid(?, `+every+`, `+window+`, `+sliding+`, `+duration+`) g JOIN _th_runs(?, `+duration+`) r USING (run)
		JOIN _remote_th_runs x USING (run) ORDER BY g.run`, exp, exp)
	if err != nil {
		return err
	}
	var grid []string
	ranges := map[string]thRange{}
	for rows.Next() {
		var run string
		var start, g, end int64
		var lastLo sql.NullInt64
		var vlo, vhi sql.NullFloat64
		if err := rows.Scan(&run, &start, &g, &lastLo, &end, &vlo, &vhi); err != nil {
			rows.Close()
			return err
		}
		last := "CAST(NULL AS BIGINT)"
		if lastLo.Valid {
			last = engine.Int(lastLo.Int64)
		}
		rg := thRange{vlo.Float64, vhi.Float64}
		if w, ok := rg.width(); ok && vlo.Valid {
			ranges[run] = rg
			grid = append(grid, "("+engine.String(run)+", "+engine.Int(start)+", "+engine.Int(g)+", "+last+", "+engine.Int(end)+", "+engine.Double(rg.lo)+", "+engine.Double(w)+")")
		} else {
			grid = append(grid, "("+engine.String(run)+", "+engine.Int(start)+", "+engine.Int(g)+", "+last+", "+engine.Int(end)+", 0D, 1D)")
		}
	}
	err = rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	vds, err := r.thValues(specs)
	if err != nil {
		return err
	}
	// k6's cumulative evaluation without abortOnFail prints the end's
	// window, (-1, end]: the percentile's first pick is counted with its
	// buckets, in the same pass
	first := o.Window == 0 && !slices.ContainsFunc(ts, func(t Threshold) bool { return t.AbortOnFail })
	q := thRows(exp, grid)
	if err := r.reduce("_remote_th_buckets", thBucketCols, q+"\n"+thBucketSums(ts, vds, first)); err != nil {
		return err
	}
	if err := r.reduce("_remote_th_failed", "run VARCHAR, t BIGINT, n BIGINT", q+`
SELECT run, c AS t, sum(count) AS n FROM q WHERE outcome <> 'ok' GROUP BY run, c`); err != nil {
		return err
	}
	// a trend's exact sum (avg) is its samples' values to 1e-9 ms (DuckDB's
	// v::DECIMAL(38,9)), which the engine summed as integers (units)
	if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE _remote_th_values AS
SELECT run, id, t, v, k, n, trues, coalesce(dsum, units * 0.000000001::DECIMAL(10,9)) AS dsum, vmin, vmax
FROM _remote_th_buckets WHERE NOT hist`); err != nil {
		return err
	}
	grid2 := `exp IS DISTINCT FROM ` + sqllit.String(exp) + ` OR duration_ms::DOUBLE IS DISTINCT FROM ` + duration +
		`::DOUBLE OR every_ms::DOUBLE IS DISTINCT FROM ` + every + `::DOUBLE OR window_ms::DOUBLE IS DISTINCT FROM ` + window +
		`::DOUBLE OR sliding IS DISTINCT FROM ` + sliding
	for _, m := range []string{
		// a percentile's rows are its samples counted per cell (v, the
		// cell's representative, k and n the count: thBucketSums,
		// thPrinted), every other threshold's one row per bucket (v NULL)
		`_th_bucket_values(exp, specs, every_ms, window_ms, sliding, duration_ms) AS TABLE
    SELECT run, id, t, v, k, n, trues, dsum, vmin, vmax, NULL::STRUCT(t BIGINT, ord BIGINT, v DOUBLE) AS last
    FROM _remote_th_values
    WHERE CASE WHEN ` + grid2 + ` THEN error('_th_bucket_values: the engine''s buckets were computed for other arguments') ELSE true END`,
		`_th_failed_buckets(exp, every_ms, window_ms, sliding, duration_ms) AS TABLE
    SELECT run, t, n FROM _remote_th_failed
    WHERE CASE WHEN ` + grid2 + ` THEN error('_th_failed_buckets: the engine''s buckets were computed for other arguments') ELSE true END`,
	} {
		if err := r.shadow(m); err != nil {
			return err
		}
	}
	return r.thPrinted(exp, o, ts, specs, q, vds, ranges, first)
}

const thBucketCols = "run VARCHAR, id INTEGER, t BIGINT, v DOUBLE, k BIGINT, n HUGEINT, trues HUGEINT, units DECIMAL(38,0), dsum DECIMAL(38,9), vmin DOUBLE, vmax DOUBLE, hist BOOLEAN, part BIGINT"

// thRows is the experiment's timed request rows in Spark SQL (WITH ... q):
// t, the end in ns of test time (as _th_samples: the end less the run's
// start), c, its bucket's end (_th_bucket, over the run's grid), and hlo
// and hw, the run's least latency and the width of a 2,048th of their range
// (thPick's first parts).
func thRows(exp string, grid []string) string {
	if len(grid) == 0 {
		grid = []string{"(CAST(NULL AS STRING), 0L, 1L, CAST(NULL AS BIGINT), 0L, 0D, 1D)"}
	}
	return `WITH g AS (SELECT * FROM VALUES ` + strings.Join(grid, ", ") + ` AS g(run, start_ns, g, last_lo, end_ns, hlo, hw)),
s AS (SELECT r.run, r.count, r.outcome, r.status, r.latency_ms AS v,
             CAST(round(r.t_ms * 1000000D) AS BIGINT) + coalesce(CAST(round(r.latency_ms * 1000000D) AS BIGINT), 0L) - g.start_ns AS t,
             g.g, g.last_lo, g.end_ns, g.hlo, g.hw
      FROM requests r JOIN g ON r.run = g.run
      WHERE r.experiment = ` + engine.String(exp) + ` AND r.t_ms IS NOT NULL),
q AS (SELECT run, count, outcome, status, v, t, hlo, hw,
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

// thBucketSums is _th_bucket_values's select over q (thBucketCols), one
// branch per threshold:
//   - a trend's samples are its rows with a latency (a row of count n is n
//     samples; their least and greatest latency whatever the threshold's
//     aggregation, and for avg their exact sum: units, each value rounded
//     to 1e-9 ms as DuckDB's v::DECIMAL(38,9) rounds it, thUnits);
//   - a percentile's samples are counted per cell (thCell) of its value vd:
//     those below it as their greatest, those on it, those above it as
//     their least (v; vmin and vmax are the cell's least and greatest,
//     which no verdict on a percentile reads). Those rows give the
//     library's verdict exactly, which reads per bucket only the counts
//     below and up to vd and the nearest values on each side; the printed
//     percentile's window is counted again, finer (thPrinted);
//   - a rate's samples are its rows with an outcome, a counter's every row.
//
// With first, a percentile's branch also counts the run's samples that end
// after -1 (k6's cumulative window at the end, (-1, end]) per 2,048th part
// of the run's range of latencies, with each part's least and greatest
// (hist rows, t NULL): thPick's first pass, in the same pass over the
// samples (GROUPING SETS). Every other row has hist false.
func thBucketSums(ts []Threshold, vds map[int]float64, first bool) string {
	var parts []string
	nul := "CAST(NULL AS DOUBLE)"
	none := "CAST(NULL AS DECIMAL(38,0)) AS units, CAST(NULL AS DECIMAL(38,9)) AS dsum"
	flat := "false AS hist, CAST(NULL AS BIGINT) AS part"
	for i, t := range ts {
		id := fmt.Sprint(i + 1)
		switch {
		case t.Base == "http_req_duration" && (t.Agg == "p" || t.Agg == "med"):
			vd := engine.Double(vds[i+1])
			sel := `SELECT run, ` + id + ` AS id, c AS t, CASE WHEN min(v) > ` + vd + ` THEN min(v) ELSE max(v) END AS v,
       sum(count) AS k, sum(count) AS n, CAST(NULL AS BIGINT) AS trues, ` + none + `, min(v) AS vmin, max(v) AS vmax`
			if !first {
				parts = append(parts, sel+`, `+flat+`
FROM q WHERE v IS NOT NULL AND count >= 1 AND `+thTags(t)+` GROUP BY run, c, `+thCell(vd))
				continue
			}
			parts = append(parts, sel+`, grouping(c) = 1 AS hist, part
FROM (SELECT *, `+thCell(vd)+` AS cell,
             CASE WHEN t > -1L THEN least(CAST(floor((v - hlo) / hw) AS BIGINT), `+fmt.Sprint(thPickBuckets-1)+`L) END AS part
      FROM q WHERE v IS NOT NULL AND count >= 1 AND `+thTags(t)+`)
GROUP BY GROUPING SETS ((run, c, cell), (run, part))`)
		case t.Base == "http_req_duration":
			units := "CAST(NULL AS DECIMAL(38,0))"
			if t.Agg == "avg" {
				units = "sum(" + thUnits + ")"
			}
			parts = append(parts, `SELECT run, `+id+` AS id, c AS t, `+nul+` AS v, sum(count) AS k, sum(count) AS n, CAST(NULL AS BIGINT) AS trues,
       `+units+` AS units, CAST(NULL AS DECIMAL(38,9)) AS dsum, min(v) AS vmin, max(v) AS vmax, `+flat+`
FROM q WHERE v IS NOT NULL AND count >= 1 AND `+thTags(t)+` GROUP BY run, c`)
		case t.Base == "http_req_failed":
			parts = append(parts, `SELECT run, `+id+` AS id, c AS t, `+nul+` AS v, count(*) AS k, sum(count) AS n,
       sum(CASE WHEN outcome <> 'ok' THEN count ELSE 0L END) AS trues, `+none+`, `+nul+` AS vmin, `+nul+` AS vmax, `+flat+`
FROM q WHERE outcome IS NOT NULL AND `+thTags(t)+` GROUP BY run, c`)
		default: // http_reqs
			parts = append(parts, `SELECT run, `+id+` AS id, c AS t, `+nul+` AS v, count(*) AS k, sum(count) AS n, CAST(NULL AS BIGINT) AS trues,
       CAST(NULL AS DECIMAL(38,0)) AS units, sum(CAST(count AS DECIMAL(38,9))) AS dsum, `+nul+` AS vmin, `+nul+` AS vmax, `+flat+`
FROM q WHERE `+thTags(t)+` GROUP BY run, c`)
		}
	}
	if len(parts) == 0 {
		return `SELECT CAST(NULL AS STRING) AS run, 0 AS id, 0L AS t, ` + nul + ` AS v, 0L AS k, 0L AS n, CAST(NULL AS BIGINT) AS trues,
       ` + none + `, ` + nul + ` AS vmin, ` + nul + ` AS vmax, ` + flat + ` FROM q WHERE false`
	}
	return strings.Join(parts, "\nUNION ALL\n")
}

// thUnits is a sample's value in units of 1e-9 ms, times its count, in
// Spark SQL over q: DuckDB's v::DECIMAL(38,9) is round(v · 1e9) (rounded
// half away from zero, in doubles) over 1e9, and Spark's round of a DOUBLE
// rounds its shortest decimal half up, which is the same integer (a double
// at n + 0.5 prints as n.5, and one below it prints below it). The integer
// goes through BIGINT, exact for a double's integers, not DECIMAL, which
// Spark would take from the shortest decimal again; past 2^63 units (about
// 107 days) the cast fails (ANSI), an error, never a wrong sum.
const thUnits = `CAST(CAST(round(v * 1000000000D) AS BIGINT) AS DECIMAL(38,0)) * CAST(count AS DECIMAL(20,0))`

// thCell is a sample's cell among the cut points (Spark SQL DOUBLE
// expressions over q's v and the step's columns): per point -1, 0 or 1 as
// v is below, on or above it, in base 3. Samples of one cell are on the
// same side of every point.
func thCell(points ...string) string {
	var terms []string
	w := 1 // 3^i
	for _, p := range points {
		terms = append(terms, fmt.Sprintf("%d * CASE WHEN v < %s THEN -1 WHEN v = %s THEN 0 ELSE 1 END", w, p, p))
		w *= 3
	}
	return "(" + strings.Join(terms, " + ") + ")"
}

// thValues is each threshold's value (vd) by id, as the library reads it.
func (r *Remote) thValues(specs string) (map[int]float64, error) {
	rows, err := r.db.QueryContext(r.ctx, `SELECT id, vd FROM _th_specs(`+specs+`) WHERE vd IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	vds := map[int]float64{}
	for rows.Next() {
		var id int
		var vd float64
		if err := rows.Scan(&id, &vd); err != nil {
			return nil, err
		}
		vds[id] = vd
	}
	return vds, rows.Err()
}

// thPrinted counts again, finer, the window whose percentile the library
// prints for each run and percentile threshold (_threshold_evals' printed
// evaluation, read in DuckDB over the verdicts' rows). The engine finds the
// window's two values k6 interpolates, at 0-based ranks floor and ceil of
// q · (n - 1) (thPick), and then counts the window's samples per cell of
// vd and those two values: the rows of the window's buckets, which replace
// the verdicts' rows there, keep every bucket's verdict and put the picked
// values at their ranks (a cell's samples are on one side of each cut
// point, so the counts below and up to each picked value are kept, and the
// values themselves are cells of their own), so the library's percentile
// over them is the one over every sample. What comes back is bounded by the buckets and the
// picking's passes, never by the samples.
//
// A window is (lo, t] of bucket ends, and the engine tests a sample's end
// t, not its bucket's end c: c is the least bucket end at or after t (or t
// itself, for t <= 0), so c > lo iff t > lo and c <= t' iff t <= t' for
// bucket ends lo and t'. Spark inlines c's CASE into each condition on it,
// which took 2.5 s more a step at 10 M rows.
//
// With first, the first pass was counted with the buckets (thBucketSums):
// its parts of the run's range of latencies start the pick of a window at
// the end, (-1, end].
func (r *Remote) thPrinted(exp string, o ThresholdsOptions, ts []Threshold, specs, q string, vds map[int]float64,
	ranges map[string]thRange, first bool) error {
	var pids []int
	for i, t := range ts {
		if t.Base == "http_req_duration" && (t.Agg == "p" || t.Agg == "med") {
			pids = append(pids, i+1)
		}
	}
	if len(pids) == 0 {
		return nil
	}
	every, window, sliding, duration := o.thArgs()
	if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE _remote_th_printed AS
WITH e AS (
    SELECT e.run, e.id, e.lo, e.t_ns, e.samples, s.q
    FROM _threshold_evals(?, `+specs+`, every_ms := `+every+`, window_ms := `+window+`, sliding := `+sliding+`, duration_ms := `+duration+`) e
    JOIN _th_specs(`+specs+`) s ON s.id = e.id
    WHERE e.printed AND s.agg IN ('p', 'med') AND e.samples > 0)
SELECT e.run, e.id, e.lo, e.t_ns AS t, e.samples AS n,
       _th_k6_rank(e.samples, e.q, false)::BIGINT AS rf, _th_k6_rank(e.samples, e.q, true)::BIGINT AS rc,
       min(x.vmin) AS vmin, max(x.vmax) AS vmax
FROM e LEFT JOIN _remote_th_values x ON x.run = e.run AND x.id = e.id AND x.t > e.lo AND x.t <= e.t_ns
GROUP BY e.run, e.id, e.lo, e.t_ns, e.samples, e.q`, exp); err != nil {
		return err
	}
	if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE _remote_th_picks (run VARCHAR, id INTEGER, plo DOUBLE, phi DOUBLE)`); err != nil {
		return err
	}
	rows, err := r.db.QueryContext(r.ctx, `SELECT run, id, lo, t, rf, rc, vmin, vmax FROM _remote_th_printed ORDER BY run, id`)
	if err != nil {
		return err
	}
	var wins []*thWindow
	for rows.Next() {
		w := &thWindow{}
		if err := rows.Scan(&w.run, &w.id, &w.lo, &w.t, &w.rank[0], &w.rank[1], &w.min, &w.max); err != nil {
			rows.Close()
			return err
		}
		wins = append(wins, w)
	}
	err = rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil || len(wins) == 0 {
		return err
	}
	tags := "CASE wid"
	for _, id := range pids {
		tags += fmt.Sprintf(" WHEN %d THEN %s", id, thTags(ts[id-1]))
	}
	tags += " END"
	known := map[thStart][]thPart{}
	if first {
		rows, err := r.db.QueryContext(r.ctx, `SELECT run, id, k, vmin, vmax FROM _remote_th_buckets WHERE hist AND part IS NOT NULL ORDER BY run, id, part`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var st thStart
			var p thPart
			if err := rows.Scan(&st.run, &st.id, &p.c, &p.lo, &p.hi); err != nil {
				rows.Close()
				return err
			}
			known[st] = append(known[st], p)
		}
		err = rows.Err()
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	if err := r.thPick(q, tags, wins, func(w *thWindow) (thRange, []thPart, bool) {
		parts, ok := known[thStart{w.run, w.id}]
		rg, split := ranges[w.run] // a run of one latency has no parts' width
		if !first || w.lo != -1 || !ok || !split {
			return thRange{}, nil, false
		}
		return rg, parts, true
	}); err != nil {
		return err
	}
	var vals []string
	for _, w := range wins {
		if _, err := r.db.ExecContext(r.ctx, `INSERT INTO _remote_th_picks VALUES (?, ?, ?, ?)`, w.run, w.id, w.v[0], w.v[1]); err != nil {
			return err
		}
		vals = append(vals, "("+engine.String(w.run)+", "+engine.Int(int64(w.id))+", "+engine.Int(w.lo)+", "+engine.Int(w.t)+", "+
			engine.Double(vds[w.id])+", "+engine.Double(w.v[0])+", "+engine.Double(w.v[1])+")")
	}
	if err := r.reduce("_remote_th_cells", "run VARCHAR, id INTEGER, t BIGINT, v DOUBLE, k BIGINT, vmin DOUBLE, vmax DOUBLE", q+`,
w AS (SELECT * FROM VALUES `+strings.Join(vals, ", ")+` AS w(wrun, wid, wlo, wt, vd, plo, phi))
SELECT run, wid AS id, c AS t, CASE WHEN min(v) > vd THEN min(v) ELSE max(v) END AS v, sum(count) AS k, min(v) AS vmin, max(v) AS vmax
FROM q JOIN w ON run = wrun AND t > wlo AND t <= wt
WHERE v IS NOT NULL AND count >= 1 AND `+tags+`
GROUP BY run, wid, c, vd, `+thCell("vd", "plo", "phi")); err != nil {
		return err
	}
	_, err = r.db.ExecContext(r.ctx, `DELETE FROM _remote_th_values x
WHERE EXISTS (SELECT 1 FROM _remote_th_printed w WHERE w.run = x.run AND w.id = x.id AND x.t > w.lo AND x.t <= w.t);
INSERT INTO _remote_th_values SELECT run, id, t, v, k, k, NULL, NULL, vmin, vmax FROM _remote_th_cells`)
	return err
}

// thWindow is a printed window (lo, t] of a run's threshold id: the ranks
// (1-based after thPick's start) whose values v it picks, its samples'
// least and greatest value.
type thWindow struct {
	run      string
	id       int
	lo, t    int64
	rank     [2]int64
	min, max float64
	v        [2]float64
}

// thStart names a run's threshold whose first pick was counted with the
// buckets.
type thStart struct {
	run string
	id  int
}

// thRange is a range of latencies [lo, hi] that thPick splits.
type thRange struct{ lo, hi float64 }

// width is a 2,048th of the range, in doubles; false where the range
// cannot be split so (one value, or past the doubles' range).
func (rg thRange) width() (float64, bool) {
	w := (rg.hi - rg.lo) / thPickBuckets
	if rg.hi <= rg.lo || w == 0 || math.IsInf(w, 0) || math.IsNaN(w) {
		return 0, false
	}
	return w, true
}

// thPart is a part of a range: its samples, least and greatest value.
type thPart struct {
	c      int64
	lo, hi float64
}

// thPickBuckets is how many parts thPick splits a range of values into.
const thPickBuckets = 2048

// thPick finds each window's values at its two ranks. A pass counts, for
// every range of values [lo, hi] that holds a wanted rank, the window's
// samples in it per part floor((v - lo) / w), w = (hi - lo) / 2048 (in
// doubles: a part's values are a run of the sorted values, since the part
// grows with v), with each part's least and greatest value; the part that
// holds the rank is the next pass's range, until its least and greatest
// value are one. lo and hi fall in different parts, so every pass leaves at
// least one of them out, and the range shrinks by about 2048 a pass:
// latencies kept to the ns over a range of seconds take three or four.
// tags is the samples' condition by threshold (wid). known gives a
// window's first pass where it was counted already: its range (which holds
// every value of the window) and its parts.
func (r *Remote) thPick(q, tags string, wins []*thWindow, known func(*thWindow) (thRange, []thPart, bool)) error {
	type target struct {
		w    *thWindow
		i    int
		rank int64 // within rg
		rg   thRange
	}
	type key struct {
		w  *thWindow
		rg thRange
	}
	counted := map[key][]thPart{}
	var todo []*target
	for _, w := range wins {
		rg := thRange{w.min, w.max}
		if krg, parts, ok := known(w); ok {
			rg = krg
			counted[key{w, rg}] = parts
		}
		for i := range w.rank {
			w.rank[i]++ // 0-based to 1-based
			todo = append(todo, &target{w: w, i: i, rank: w.rank[i], rg: rg})
		}
	}
	for pass := 0; ; pass++ {
		ids := map[key]int{}
		var keys []key
		var vals []string
		var open []*target
		for _, t := range todo {
			if t.rg.lo == t.rg.hi {
				t.w.v[t.i] = t.rg.lo
				continue
			}
			open = append(open, t)
			k := key{t.w, t.rg}
			if _, ok := counted[k]; ok {
				continue
			}
			if _, ok := ids[k]; ok {
				continue
			}
			width, ok := t.rg.width()
			if !ok {
				return fmt.Errorf("thresholds: run %s's samples of threshold %d span [%v, %v], which the engine cannot split to pick its percentile", t.w.run, t.w.id, t.rg.lo, t.rg.hi)
			}
			ids[k] = len(keys)
			keys = append(keys, k)
			vals = append(vals, fmt.Sprintf("(%d, %s, %d, %s, %s, %s, %s, %s)", ids[k], engine.String(t.w.run), t.w.id,
				engine.Int(t.w.lo), engine.Int(t.w.t), engine.Double(t.rg.lo), engine.Double(t.rg.hi), engine.Double(width)))
		}
		if len(open) == 0 {
			return nil
		}
		if len(vals) > 0 {
			if err := r.thPickPass(fmt.Sprintf("_remote_th_pick_%d", pass), q, tags, vals, func(id int, p thPart) {
				counted[keys[id]] = append(counted[keys[id]], p)
			}); err != nil {
				return err
			}
		}
		for _, t := range open {
			below, found := int64(0), false
			for _, p := range counted[key{t.w, t.rg}] {
				if below+p.c >= t.rank {
					if p.lo == t.rg.lo && p.hi == t.rg.hi {
						return fmt.Errorf("thresholds: the engine did not split run %s's samples of threshold %d in [%v, %v]", t.w.run, t.w.id, t.rg.lo, t.rg.hi)
					}
					t.rank, t.rg, found = t.rank-below, thRange{p.lo, p.hi}, true
					break
				}
				below += p.c
			}
			if !found {
				return fmt.Errorf("thresholds: the engine counted %d samples in run %s's printed window of threshold %d, fewer than rank %d", below, t.w.run, t.w.id, t.rank)
			}
		}
		todo = open
	}
}

// thPickPass is one of thPick's passes over the ranges in vals (rid, the
// window's run, threshold, lo and t, the range's lo and hi and the parts'
// width): each range's parts in order, handed to add.
func (r *Remote) thPickPass(step, q, tags string, vals []string, add func(rid int, p thPart)) error {
	if err := r.reduce(step, "rid INTEGER, b BIGINT, c HUGEINT, vlo DOUBLE, vhi DOUBLE", q+`,
p AS (SELECT * FROM VALUES `+strings.Join(vals, ", ")+` AS p(rid, wrun, wid, wlo, wt, rlo, rhi, rw))
SELECT rid, least(CAST(floor((v - rlo) / rw) AS BIGINT), `+fmt.Sprint(thPickBuckets-1)+`L) AS b, sum(count) AS c, min(v) AS vlo, max(v) AS vhi
FROM q JOIN p ON run = wrun AND t > wlo AND t <= wt AND v >= rlo AND v <= rhi
WHERE v IS NOT NULL AND count >= 1 AND `+tags+`
GROUP BY rid, b`); err != nil {
		return err
	}
	rows, err := r.db.QueryContext(r.ctx, `SELECT rid, c::BIGINT, vlo, vhi FROM `+step+` ORDER BY rid, b`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int
		var p thPart
		if err := rows.Scan(&id, &p.c, &p.lo, &p.hi); err != nil {
			return err
		}
		add(id, p)
	}
	return rows.Err()
}
