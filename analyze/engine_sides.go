package analyze

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// The hypothesis windows on an engine (falsification, stop-damage): the
// per-request work of _hyp_windows (queries/windows.sql) as reduce steps,
// the rest of the library's SQL unchanged over what comes back.

// runRows is the reduce step of an experiment's runs: per run with a row,
// its role, sum of count, time span, rows with t_ms and whether it has a
// tagged row; one row per run comes back. It is what the sides, the
// window's "no t_ms" refusal and the damage note read locally from
// requests.
func (r *Remote) runRows(exp string) (runCounts, error) {
	return r.runRowsWhere("experiment = " + engine.String(exp))
}

// runRowsWhere is runRows over the rows where selects (a side, or a part of
// one).
func (r *Remote) runRowsWhere(where string) (runCounts, error) {
	err := r.reduce("_remote_run_rows", "run VARCHAR, role VARCHAR, requests BIGINT, span_ms DOUBLE, timed BIGINT, tagged BOOLEAN, n_rows BIGINT, latencies BIGINT, weighted BIGINT, file_ids VARCHAR", `
SELECT run, first(role) AS role, sum(count) AS requests, max(t_ms) - min(t_ms) AS span_ms, count(t_ms) AS timed,
       coalesce(bool_or(tagged), false) AS tagged, count(*) AS n_rows, count(latency_ms) AS latencies,
       count_if(count > 1 AND latency_ms IS NOT NULL) AS weighted,
       concat_ws(',', collect_set(CAST(file_id AS STRING))) AS file_ids
FROM requests WHERE `+where+`
GROUP BY run`)
	if err != nil {
		return runCounts{}, err
	}
	// the formats of a run's files, as RequireLatency's join names them
	rows, err := r.Querier().Query(`SELECT run, role, requests, span_ms, timed, tagged, n_rows, latencies, weighted,
		(SELECT string_agg(DISTINCT f.format, ', ' ORDER BY f.format) FROM files f
		 WHERE list_contains(string_split(r.file_ids, ','), f.file_id::VARCHAR))
		FROM _remote_run_rows r ORDER BY run`)
	if err != nil {
		return runCounts{}, err
	}
	defer rows.Close()
	out := runCounts{tagged: map[string]bool{}}
	for rows.Next() {
		var x hypothesis.RunRows
		var role sql.NullString
		var timed int64
		var tagged bool
		if err := rows.Scan(&x.Run, &role, &x.Requests, &x.SpanMs, &timed, &tagged, &x.Rows, &x.Latencies, &x.Weighted, &x.Formats); err != nil {
			return runCounts{}, err
		}
		x.Role = role.String
		out.timed += timed
		out.tagged[x.Run] = tagged
		out.runs = append(out.runs, x)
	}
	return out, rows.Err()
}

// runCounts are one experiment's runs as the engine counted them.
type runCounts struct {
	runs   []hypothesis.RunRows
	timed  int64           // rows with t_ms
	tagged map[string]bool // per run: a tagged row
}

// remoteRuns counts each experiment's runs, and each part of a split
// run, once.
type remoteRuns struct {
	r     *Remote
	byExp map[string]runCounts // by experiment, or by a part's filter
}

func (rr *remoteRuns) of(exp string) (runCounts, error) {
	return rr.where("experiment = " + engine.String(exp))
}

// side counts a side's runs: a whole side is its experiment's runs, a part
// of a split run is counted over its rows.
func (rr *remoteRuns) side(s hypothesis.Side) (runCounts, error) {
	if s.FromMs == nil && s.UntilMs == nil {
		return rr.of(s.Experiment)
	}
	return rr.where(sparkSide(s))
}

func (rr *remoteRuns) where(where string) (runCounts, error) {
	if x, ok := rr.byExp[where]; ok {
		return x, nil
	}
	x, err := rr.r.runRowsWhere(where)
	if err == nil {
		rr.byExp[where] = x
	}
	return x, err
}

// hypothesisRuns is how the hypotheses' analyses on an engine begin: the
// experiment and its window found, and the runs' step.
func (r *Remote) hypothesisRuns(h hypothesis.Hypothesis, experiment string, window hypothesis.Window) (store.Experiment, hypothesis.Window, *remoteRuns, error) {
	db := r.Querier()
	e, w, err := findWindow(db, h.ExperimentIn(db, experiment), window)
	if err != nil {
		return store.Experiment{}, hypothesis.Window{}, nil, err
	}
	runs, err := r.remoteRunsOf(e, w)
	return e, w, runs, err
}

// remoteRunsOf counts e's runs on the engine, refusing first what the
// local path refuses before it resolves the sides: duration windows over
// an experiment without t_ms (experimentWindow).
func (r *Remote) remoteRunsOf(e store.Experiment, w hypothesis.Window) (*remoteRuns, error) {
	rr := &remoteRuns{r: r, byExp: map[string]runCounts{}}
	x, err := rr.of(e.Name)
	if err != nil {
		return nil, err
	}
	if w.Ms > 0 && x.timed == 0 {
		return nil, noTMsError(e.Name)
	}
	return rr, nil
}

// sides is ResolveSides over the counted runs, and whether the treatment
// side has a tagged row (HasTags).
func (rr *remoteRuns) sides(e store.Experiment, h hypothesis.Hypothesis, absolute bool) (hypothesis.Sides, bool, error) {
	runs := func(exp string) ([]hypothesis.RunRows, error) {
		x, err := rr.of(exp)
		return x.runs, err
	}
	part := func(s hypothesis.Side) ([]hypothesis.RunRows, error) {
		x, err := rr.side(s)
		return x.runs, err
	}
	s, err := hypothesis.ResolveSidesCounted(rr.r.Querier(), e, h, hypothesis.Counted{Runs: runs, Part: part, Event: rr.r.splitEvent}, absolute)
	if err != nil {
		return s, false, err
	}
	x, err := rr.side(s.Treatment)
	if err != nil {
		return s, false, err
	}
	var tagged bool
	for _, run := range x.runs {
		if (s.Treatment.Run != "" && s.Treatment.Run == run.Run) || (s.Treatment.Run == "" && run.Role == s.Treatment.Role) {
			tagged = tagged || x.tagged[run.Run]
		}
	}
	return s, tagged, nil
}

// sparkSide is the rows of one side as a Spark SQL filter over requests.
func sparkSide(s hypothesis.Side) string {
	q := "experiment = " + engine.String(s.Experiment)
	if s.Run != "" {
		q += " AND run = " + engine.String(s.Run)
	} else {
		q += " AND role = " + engine.String(s.Role)
	}
	if s.FromMs != nil {
		q += " AND t_ms >= " + engine.Double(*s.FromMs)
	}
	if s.UntilMs != nil {
		q += " AND t_ms < " + engine.Double(*s.UntilMs)
	}
	return q
}

// windowAggregates are side_windows's per-window aggregates in Spark SQL
// over rows p (role, w, t_ms, count, ok, tagged, damaged, lat_us), without
// the latency quantile and the keys (role, the group's, w). Spark's sum of a BIGINT is a BIGINT that raises on
// overflow in ANSI mode, as the local ::BIGINT cast does; the latency sum
// is a DECIMAL(38,0), the local HUGEINT.
const windowAggregates = `min(t_ms) AS first_t_ms, max(t_ms) AS last_t_ms,
       sum(count) AS requests,
       coalesce(sum(count) FILTER (WHERE ok), 0) AS ok,
       coalesce(sum(count) FILTER (WHERE damaged), 0) AS damage,
       coalesce(sum(count) FILTER (WHERE tagged), 0) AS tagged,
       sum(count) FILTER (WHERE lat_us IS NOT NULL) AS lat_n,
       sum(CAST(lat_us AS DECIMAL(38,0)) * count) AS lat_sum,
       max(count) FILTER (WHERE lat_us IS NOT NULL) AS lat_weight`

const windowsRawCols = "window_no BIGINT, first_t_ms DOUBLE, last_t_ms DOUBLE, requests BIGINT, ok BIGINT, damage BIGINT, tagged BIGINT, lat_n HUGEINT, lat_sum HUGEINT, lat_q BIGINT, lat_weight BIGINT"

// metricThousandths is a quantile metric's q in thousandths (_metric_q).
var metricThousandths = map[string]int64{"p50": 500, "p90": 900, "p95": 950, "p99": 990, "p99.9": 999, "max": 1000}

// sideRows is one side's rows (labelled role) with what the windows read:
// _side_input's columns; lat_us, the latency rounded to the microsecond
// (Spark's round of a DOUBLE is half away from zero, as DuckDB's), only
// for a latency metric; and the group's fields (g0, …).
func sideRows(role string, s hypothesis.Side, needLat bool, eg engineGroup) string {
	lat := "CAST(NULL AS BIGINT)"
	if needLat {
		lat = "CAST(round(latency_ms * 1000D) AS BIGINT)"
	}
	return `SELECT ` + engine.String(role) + ` AS role, run, seq, t_ms, count, outcome = 'ok' AS ok, tagged,
       tagged AND outcome <> 'ok' AS damaged, ` + lat + ` AS lat_us` + eg.sel() + `
FROM requests WHERE ` + sparkSide(s)
}

// windowsStep is the reduce step of both sides' windows: one row per side
// (and group) and window comes back.
//
// Duration windows: a row's window is floor((t_ms - from) / size_ms), from
// the side's split or 0, as in _side_rows (the same IEEE division; Spark's
// floor of a DOUBLE is a BIGINT). Count windows: a row's position is its
// rank in (run, seq) order among the side's rows. It is computed without a
// global sort: the rows are counted per (run, seq div 65536) block, a
// running sum over those block counts (partitioned by side only, over rows
// / 65536 aggregates) gives each block's first position, and the rows are
// numbered only inside their block (partitioned by side, run and block). A
// latency quantile is quantile_disc's nearest rank, picked in integers: the
// k-th smallest latency of the window's n rows with one, k = max(1,
// ceil(q n)) with q in thousandths (rows numbered within their window
// only).
//
// With --by, each group of a side is read as a log of its own, as in
// _side_windows_by: the group's fields are one more key of every grouping,
// partition and join (NULL-safe: a NULL is a group like any other), so a
// count window's positions are counted within its side and group.
func windowsStep(s hypothesis.Sides, w hypothesis.Window, eg engineGroup) string {
	return windowsWith(s, w, eg, "control", "experiment") + "\n" + windowsSelect(eg)
}

// windowsWith is windowsStep's common table expressions over the sides
// named by roles ("control", "experiment"): a, the aggregates per side,
// group and window, and q, their latency quantiles.
func windowsWith(s hypothesis.Sides, w hypothesis.Window, eg engineGroup, roles ...string) string {
	needLat := hypothesis.NeedsLatency(s.Metric)
	var parts []string
	for _, role := range roles {
		side := s.Control
		if role == "experiment" {
			side = s.Treatment
		}
		parts = append(parts, sideRows(role, side, needLat, eg))
	}
	rows := strings.Join(parts, "\nUNION ALL\n")
	k := eg.keys()
	var p string
	if w.Ms > 0 {
		from := func(x hypothesis.Side) string {
			if x.FromMs == nil {
				return "0D"
			}
			return engine.Double(*x.FromMs)
		}
		p = `p AS (SELECT *, CAST(floor((t_ms - CASE role WHEN 'control' THEN ` + from(s.Control) + ` ELSE ` + from(s.Treatment) + ` END) / ` +
			engine.Double(w.Ms) + `) AS BIGINT) AS w FROM s WHERE t_ms IS NOT NULL)`
	} else {
		p = `b AS (SELECT role` + k + `, run, seq div 65536 AS b, count(*) AS n FROM s GROUP BY role` + k + `, run, seq div 65536),
o AS (SELECT role` + k + `, run, b, sum(n) OVER (PARTITION BY role` + k + ` ORDER BY run, b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - n AS before FROM b),
p AS (SELECT s.*, (o.before + row_number() OVER (PARTITION BY s.role` + eg.keysOf("s") + `, s.run, s.seq div 65536 ORDER BY s.seq) - 1) div ` + engine.Int(w.N) + ` AS w
      FROM s JOIN o ON s.role = o.role` + eg.on("s", "o") + ` AND s.run = o.run AND s.seq div 65536 = o.b)`
	}
	q, pick := `SELECT role`+k+`, w, CAST(NULL AS BIGINT) AS lat_q FROM p WHERE false`, metricThousandths[s.Metric]
	if pick > 0 {
		q = `SELECT role` + k + `, w, max(CASE WHEN rn = greatest(1L, (` + engine.Int(pick) + ` * n + 999L) div 1000L) THEN lat_us END) AS lat_q
FROM (SELECT role` + k + `, w, lat_us, row_number() OVER (PARTITION BY role` + k + `, w ORDER BY lat_us) AS rn, count(*) OVER (PARTITION BY role` + k + `, w) AS n
      FROM p WHERE lat_us IS NOT NULL)
GROUP BY role` + k + `, w`
	}
	return `WITH s AS (` + rows + `),
` + p + `,
a AS (SELECT role` + k + `, w, ` + windowAggregates + ` FROM p GROUP BY role` + k + `, w),
q AS (` + q + `)`
}

// windowsSelect is windowsStep's rows over windowsWith's: one per side,
// group and window.
func windowsSelect(eg engineGroup) string {
	return `SELECT a.role` + eg.keysOf("a") + `, a.w + 1 AS window_no, a.first_t_ms, a.last_t_ms, a.requests, a.ok, a.damage, a.tagged, a.lat_n, a.lat_sum, q.lat_q, a.lat_weight
FROM a LEFT JOIN q ON a.role = q.role` + eg.on("a", "q") + ` AND a.w = q.w`
}

// hypWindows runs the windows step and makes the in-memory database's
// _hyp_windows read its result (with --by, _side_windows_by: sideWindowsBy),
// for the given windows and sides only: the library's judging
// (_judged_windows, hypothesis_sweep, _streaks, or their _by twins) then
// runs unchanged. A call with other arguments raises an error rather than
// read windows computed for others.
func (r *Remote) hypWindows(e store.Experiment, s hypothesis.Sides, w hypothesis.Window, eg engineGroup) error {
	if err := r.reduce("_remote_windows_raw", "role VARCHAR"+eg.cols()+", "+windowsRawCols, windowsStep(s, w, eg)); err != nil {
		return err
	}
	n, ms := windowLiterals(w)
	metric := sqllit.String(s.Metric)
	gk := ""
	if len(eg.fields) > 0 {
		gk = eg.gk() + " AS gk, "
	}
	// side_windows's last two steps, over the engine's aggregates
	if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE _remote_hyp_windows AS
WITH v AS (
    SELECT role, `+gk+`window_no, first_t_ms, last_t_ms, requests, ok, damage, tagged,
           _metric_num(`+metric+`, requests, ok, lat_sum, lat_q, lat_weight) AS value_num,
           _metric_den(`+metric+`, requests, lat_n, `+ms+`) AS value_den
    FROM _remote_windows_raw
)
SELECT * REPLACE (CASE WHEN value_den > 0 THEN value_num END AS value_num,
                  CASE WHEN value_den > 0 THEN value_den END AS value_den),
       CASE WHEN value_den > 0 THEN value_num::DOUBLE / value_den / _metric_per(`+metric+`) END AS value
FROM v`); err != nil {
		return err
	}
	if len(eg.fields) > 0 {
		// the library's _hyp_windows, not a former call's over windows
		// without groups: _sweep binds it, beside the grouped branch
		if _, err := r.db.ExecContext(r.ctx, libraryHypWindows()); err != nil {
			return err
		}
		return r.sideWindowsBy(s, n, ms)
	}
	split := splitLiteral(s)
	_, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO _hyp_windows(exp, size_n := NULL, size_ms := NULL, metric := 'ok_share',
        control_exp := NULL, control_run := NULL, control_role := NULL,
        treatment_exp := NULL, treatment_run := NULL, treatment_role := NULL, split_ms := NULL) AS TABLE
    SELECT * FROM _remote_hyp_windows
    WHERE CASE WHEN exp IS DISTINCT FROM `+sqllit.String(e.Name)+` OR size_n::BIGINT IS DISTINCT FROM `+n+`
                    OR size_ms::DOUBLE IS DISTINCT FROM `+ms+` OR metric IS DISTINCT FROM `+metric+`
                    OR split_ms::DOUBLE IS DISTINCT FROM `+split+`
                    OR coalesce(control_run, '') IS DISTINCT FROM `+sqllit.String(s.Control.Run)+`
                    OR coalesce(treatment_run, '') IS DISTINCT FROM `+sqllit.String(s.Treatment.Run)+`
               THEN error('_hyp_windows: the engine''s windows were computed for other arguments') ELSE true END`)
	return err
}

var libraryHypWindows = sync.OnceValue(func() string { return libraryMacro("windows", "_hyp_windows") })

// windowLiterals are w's size_n and size_ms as DuckDB literals, NULL for
// the one it does not give.
func windowLiterals(w hypothesis.Window) (n, ms string) {
	if w.Ms > 0 {
		return "NULL", duckDouble(w.Ms)
	}
	return fmt.Sprint(w.N), "NULL"
}

// splitLiteral is the treatment side's split_ms as a DuckDB literal.
func splitLiteral(s hypothesis.Sides) string {
	if s.Treatment.FromMs == nil {
		return "NULL"
	}
	return duckDouble(*s.Treatment.FromMs)
}

// duckDouble is f as an exact DuckDB DOUBLE literal.
func duckDouble(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) + "::DOUBLE" }
