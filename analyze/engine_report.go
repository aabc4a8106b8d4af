package analyze

import (
	"strings"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// The report's own reads of requests on an engine (report.BuildOn): each
// is a reduce step whose rows (per run, per side, per bucket: never per
// request) land in a temporary table of the in-memory database, where the
// report's SQL finishes as it does over requests. Each step's DuckDB twin
// is in report's Spark test, compared row for row.

// ReportRunsCols are the columns of _report_runs: per run of the
// experiment (and its role), the first seq (the report's run order), the
// sum of count, the rows, the rows with an outcome, the requests ok, the
// rows with t_ms, with a latency, with both, whether a row is tagged, and
// the rows that are retries or were retried.
const ReportRunsCols = "run VARCHAR, role VARCHAR, min_seq BIGINT, requests BIGINT, n_rows BIGINT, outcomes BIGINT, ok_requests BIGINT, timed BIGINT, latencies BIGINT, latency_timed BIGINT, tagged BOOLEAN, retried BIGINT"

// ReportRuns loads _report_runs (ReportRunsCols) for experiment exp: one
// row per run and role.
func (r *Remote) ReportRuns(exp string) error {
	return r.reduce("_report_runs", ReportRunsCols, `
SELECT run, role, min(seq) AS min_seq, sum(count) AS requests, count(*) AS n_rows, count(outcome) AS outcomes,
       coalesce(sum(count) FILTER (WHERE outcome = 'ok'), 0) AS ok_requests,
       count(t_ms) AS timed, count(latency_ms) AS latencies,
       count_if(latency_ms IS NOT NULL AND t_ms IS NOT NULL) AS latency_timed,
       coalesce(bool_or(tagged), false) AS tagged,
       count_if(attempt > 0 OR retried) AS retried
FROM requests WHERE experiment = `+engine.String(exp)+`
GROUP BY run, role`)
}

// ReportSidesCols are the columns of _report_sides: per side (control,
// experiment), the sum of count, the requests ok, with an outcome and not
// ok (NULL where none), the first and last t_ms, the rows and the rows with
// a latency.
const ReportSidesCols = "side VARCHAR, requests BIGINT, ok BIGINT, outcome_requests BIGINT, not_ok BIGINT, min_t_ms DOUBLE, max_t_ms DOUBLE, n_rows BIGINT, latencies BIGINT"

// ReportSides loads _report_sides (ReportSidesCols) for the two sides:
// one row each, sums NULL over a side without rows, as the aggregates of
// an empty set are.
func (r *Remote) ReportSides(control, treatment hypothesis.Side) error {
	side := func(label string, s hypothesis.Side) string {
		return `SELECT ` + engine.String(label) + ` AS side, sum(count) AS requests,
       sum(count) FILTER (WHERE outcome = 'ok') AS ok,
       sum(count) FILTER (WHERE outcome IS NOT NULL) AS outcome_requests,
       sum(count) FILTER (WHERE outcome <> 'ok') AS not_ok,
       min(t_ms) AS min_t_ms, max(t_ms) AS max_t_ms, count(*) AS n_rows, count(latency_ms) AS latencies
FROM requests WHERE ` + sparkSide(s)
	}
	return r.reduce("_report_sides", ReportSidesCols, side("control", control)+"\nUNION ALL\n"+side("experiment", treatment))
}

// ReportBucketsCols are the columns of _report_buckets: the requests of
// each run summed per bucket of a width, floor(t_ms / width).
const ReportBucketsCols = "width BIGINT, run VARCHAR, bucket BIGINT, n BIGINT"

// ReportBuckets loads _report_buckets (ReportBucketsCols) for experiment
// exp, one row per run and non-empty bucket of each width (ms): the same
// IEEE division as the local floor(t_ms / width), Spark's floor of a
// DOUBLE being a BIGINT.
func (r *Remote) ReportBuckets(exp string, widths ...int64) error {
	var parts []string
	for _, w := range widths {
		parts = append(parts, `SELECT `+engine.Int(w)+` AS width, run, CAST(floor(t_ms / `+engine.Double(float64(w))+`) AS BIGINT) AS bucket, sum(count) AS n
FROM requests WHERE experiment = `+engine.String(exp)+` AND t_ms IS NOT NULL
GROUP BY run, CAST(floor(t_ms / `+engine.Double(float64(w))+`) AS BIGINT)`)
	}
	return r.reduce("_report_buckets", ReportBucketsCols, strings.Join(parts, "\nUNION ALL\n"))
}

// ReportFromPosCols are the columns of _report_from_pos: over a side's
// rows, the first t_ms of the rows at a run position of pos or more, and
// the last t_ms.
const ReportFromPosCols = "from_t_ms DOUBLE, to_t_ms DOUBLE"

// ReportFromPos loads _report_from_pos (ReportFromPosCols): one row,
// min(t_ms) FILTER (WHERE run_pos >= pos) and max(t_ms) over the side's
// rows. A row's run position is its 0-based rank in its run's seq order
// (docs/dataset.md), counted over the run's rows, the side's time bounds
// applied after; it is computed as count windows' positions are, without a
// global sort: rows counted per (run, seq div 65536) block, a running sum
// over the blocks partitioned by run, and rows numbered only inside the
// block that holds position pos.
func (r *Remote) ReportFromPos(s hypothesis.Side, pos int64) error {
	whole := s
	whole.FromMs, whole.UntilMs = nil, nil
	in := "true"
	if s.FromMs != nil {
		in += " AND t_ms >= " + engine.Double(*s.FromMs)
	}
	if s.UntilMs != nil {
		in += " AND t_ms < " + engine.Double(*s.UntilMs)
	}
	p := engine.Int(pos)
	return r.reduce("_report_from_pos", ReportFromPosCols, `
WITH s AS (SELECT run, seq, t_ms, seq div 65536 AS b, `+in+` AS side FROM requests WHERE `+sparkSide(whole)+`),
c AS (SELECT run, b, count(*) AS n, min(t_ms) FILTER (WHERE side) AS lo, max(t_ms) FILTER (WHERE side) AS hi FROM s GROUP BY run, b),
o AS (SELECT run, b, n, lo, hi, sum(n) OVER (PARTITION BY run ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - n AS before FROM c),
h AS (SELECT run, b, before FROM o WHERE before <= `+p+` AND `+p+` < before + n),
k AS (SELECT s.t_ms, s.side, h.before + row_number() OVER (PARTITION BY s.run ORDER BY s.seq) - 1 AS pos
      FROM s JOIN h ON s.run = h.run AND s.b = h.b)
SELECT least((SELECT min(lo) FROM o WHERE before > `+p+`), (SELECT min(t_ms) FROM k WHERE side AND pos >= `+p+`)) AS from_t_ms,
       (SELECT max(hi) FROM o) AS to_t_ms`)
}

// ReportEventsCols are the columns of _report_events: the experiment's
// k6_metric events that record thresholds, and the first Chaos Toolkit
// action's start and the last action's end or start (NULL without).
const ReportEventsCols = "recorded BIGINT, action_from_ms DOUBLE, action_to_ms DOUBLE"

// ReportEvents loads _report_events (ReportEventsCols) for experiment exp:
// one row, read from the dataset's events (a view of its folder with the
// columns given, so that a folder without parts reads as empty).
func (r *Remote) ReportEvents(exp string) error {
	if err := r.eventsView(); err != nil {
		return err
	}
	return r.reduce("_report_events", ReportEventsCols, `
SELECT count_if(type = 'k6_metric' AND json_array_length(get_json_object(attrs, '$.thresholds')) > 0) AS recorded,
       min(t_ms) FILTER (WHERE type = 'action_start' AND t_ms IS NOT NULL) AS action_from_ms,
       max(t_ms) FILTER (WHERE type IN ('action_start', 'action_end') AND t_ms IS NOT NULL) AS action_to_ms
FROM events WHERE experiment = `+engine.String(exp))
}

// ResolveSides is hypothesis.ResolveSides over runs the engine counts (as
// FalsificationOn resolves them), a split at an event read from the
// dataset's events on the engine.
func (r *Remote) ResolveSides(e store.Experiment, h hypothesis.Hypothesis, absolute bool) (hypothesis.Sides, error) {
	rr := &remoteRuns{r: r, byExp: map[string]runCounts{}}
	s, _, err := rr.sides(e, h, absolute)
	return s, err
}

// NoRequests makes the in-memory database's requests (empty: the rows are
// on the engine) raise an error when read, so that a read of requests a
// reduce step should have replaced fails instead of counting nothing.
func (r *Remote) NoRequests(what string) error {
	_, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP VIEW requests AS
SELECT q.* FROM (SELECT 1 AS one) AS g LEFT JOIN (SELECT * FROM memory.main.requests) AS q ON true
WHERE error(CASE WHEN g.one = 1 THEN `+sqllit.String(what+" read the requests of the in-memory database, whose rows are on the engine: a reduce step is missing")+` END) IS NULL`)
	return err
}
