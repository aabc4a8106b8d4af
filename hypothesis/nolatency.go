package hypothesis

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// A log whose format gives no request time (an access log without
// request_time, a canonical log without latency_ms) loads: its error rate,
// throughput and peaks are sound. A latency metric over it has no sample,
// and a window without samples is never falsified, a threshold over no
// samples passes: so every latency judgement asks RequireLatency first, and
// refuses runs none of whose rows carry a latency. A run with some latencies
// missing is judged on those it has.

// UseInstead is the advice for a hypothesis metric that needs a latency.
const UseInstead = "use {metric} ok_share, error_rate or throughput"

// GoodInstead is the advice for an SLI (good) that reads latency_ms.
const GoodInstead = "judge an SLI over outcome or status (the default {good} is outcome = 'ok')"

// NeedsLatency reports whether a hypothesis metric is a latency.
func NeedsLatency(metric string) bool { return MetricUnit(metric) == "ms" }

// GoodNeedsLatency reports whether an SLI expression (--good) reads latency_ms.
func GoodNeedsLatency(good string) bool { return strings.Contains(strings.ToLower(good), "latency_ms") }

// NoLatencyError is a latency judgement refused: Whose says which runs (or
// which rows of a followed log) have no latency_ms, Use what can be judged
// instead (a param format: parameters as {name}, no verbs).
type NoLatencyError struct {
	What       *param.Error
	Whose, Use string
}

func (e *NoLatencyError) Error() string { return e.Unwrap().Error() }

// Unwrap is the message as a param.Error, for a caller to name the
// parameters in its words.
func (e *NoLatencyError) Unwrap() error {
	return param.Errorf(e.What.Param, "%w cannot be judged: %s; "+e.Use, e.What, e.Whose)
}

// RequireLatency refuses to judge what over the requests where (a WHERE
// over the requests table, with args) selects, when a run among them has
// rows and not one latency_ms.
func RequireLatency(db store.Querier, what *param.Error, use, where string, args ...any) error {
	runs, err := noLatencyRuns(db, where, args...)
	if err != nil || len(runs) == 0 {
		return err
	}
	return &NoLatencyError{What: what, Whose: strings.Join(runs, "; "), Use: use}
}

// RequireLatencyCounted is RequireLatency over experiment exp's runs as
// an engine counted them (rows, and rows with a latency_ms).
func RequireLatencyCounted(what *param.Error, use, exp string, runs []RunRows) error {
	var out []string
	for _, r := range runs {
		if r.Rows > 0 && r.Latencies == 0 {
			out = append(out, noLatencyRun(exp, r.Run, r.Rows, r.Formats))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return &NoLatencyError{What: what, Whose: strings.Join(out, "; "), Use: use}
}

// noLatencyRuns names the runs among the rows where selects that have rows
// and not one latency_ms, in (experiment, run) order. Most logs have a
// latency on every row, which one count without grouping tells (the
// condition in the scan, where DuckDB skips every segment whose statistics
// hold no NULL latency); else the
// rows are counted per file before the files' formats are joined in
// (joining every row took as long as a latency analysis's own query,
// issue 41).
func noLatencyRuns(db store.Querier, where string, args ...any) ([]string, error) {
	var missing int64
	if err := db.QueryRow(`SELECT count(*) FROM requests WHERE latency_ms IS NULL AND (`+where+`)`, args...).Scan(&missing); err != nil {
		return nil, err
	}
	if missing == 0 {
		return nil, nil
	}
	rows, err := db.Query(`SELECT r.experiment, r.run, sum(r.n)::BIGINT, string_agg(DISTINCT f.format, ', ' ORDER BY f.format)
		FROM (SELECT experiment, run, file_id, count(*) AS n, count(latency_ms) AS lat FROM requests WHERE `+where+`
		      GROUP BY ALL) r
		LEFT JOIN files f USING (file_id)
		GROUP BY r.experiment, r.run HAVING sum(r.lat) = 0 ORDER BY 1, 2`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var runs []string
	for rows.Next() {
		var exp, run string
		var n int64
		var format sql.NullString
		if err := rows.Scan(&exp, &run, &n, &format); err != nil {
			return nil, err
		}
		runs = append(runs, noLatencyRun(exp, run, n, format))
	}
	return runs, rows.Err()
}

func noLatencyRun(exp, run string, n int64, format sql.NullString) string {
	s := fmt.Sprintf("run %s of experiment %s has no latency_ms in any of its %d rows", run, exp, n)
	if format.Valid {
		s += " (format " + format.String + ")"
	}
	return s
}

// requireSidesLatency is RequireSideLatency over both sides.
func requireSidesLatency(rc rowCounts, s Sides) error {
	if !NeedsLatency(s.Metric) {
		return nil
	}
	for _, side := range []Side{s.Treatment, s.Control} {
		runs, err := rc.noLatency(side)
		if err != nil {
			return err
		}
		if len(runs) > 0 {
			return &NoLatencyError{What: param.Errorf("metric", "metric %s", s.Metric), Whose: strings.Join(runs, "; "), Use: UseInstead}
		}
	}
	return nil
}

// RequireSideLatency is RequireLatency over one side of a hypothesis, for
// a latency metric.
func RequireSideLatency(db store.Querier, metric string, side Side) error {
	if !NeedsLatency(metric) {
		return nil
	}
	where, args := side.where()
	return RequireLatency(db, param.Errorf("metric", "metric %s", metric), UseInstead, where, args...)
}

// RequireGoodLatency is RequireLatency for an SLI (--good) that reads
// latency_ms: over rows without one it is NULL, no event, and the SLO
// could never burn.
func RequireGoodLatency(db store.Querier, good, where string, args ...any) error {
	if !GoodNeedsLatency(good) {
		return nil
	}
	return RequireLatency(db, param.Errorf("good", "{good} %q", good), GoodInstead, where, args...)
}
