package analyze

import (
	"database/sql"
	"fmt"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// maxRetriesSpanMs bounds a run's span of t_ms for retries, which takes an
// operation's times relative to its run's first and sums them in
// DECIMAL(18,6) (at most 10^12 with the latency added): ingest takes t_ms
// to ±4e12 (epoch ms), so one run can hold a wider span than that.
const maxRetriesSpanMs = 9e11

// checkRetriesSpan names the first run whose times span more than retries
// can take, instead of DuckDB's cast error. The whole column's extremes,
// which DuckDB takes from the table's statistics without a scan, bound
// every run's span: only past the limit are the runs' own read (a pass
// over every request, issue 41).
func checkRetriesSpan(db store.Querier, exp string) error {
	x, err := tableExtremes(db)
	if err != nil {
		return err
	}
	if span := x.sendSpan(); !span.Valid || span.Float64 <= maxRetriesSpanMs {
		return nil
	}
	return checkRetriesSpanOf(db, `SELECT run, min(t_ms) AS lo, max(t_ms) AS hi FROM requests WHERE experiment = ? GROUP BY run`, exp)
}

// checkRetriesSpanOf is checkRetriesSpan over the runs' first and last
// t_ms (run, lo, hi) that spans reads.
func checkRetriesSpanOf(db store.Querier, spans string, args ...any) error {
	var run string
	var lo, hi sql.NullFloat64
	err := db.QueryRow(`SELECT run, lo, hi FROM (`+spans+`) WHERE hi - lo > ? ORDER BY run LIMIT 1`,
		append(args, maxRetriesSpanMs)...).Scan(&run, &lo, &hi)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("run %q: its t_ms span %s to %s ms, more than the %s ms (about 28 years) retries takes in one run",
		run, hypothesis.TrimFloat(lo.Float64), hypothesis.TrimFloat(hi.Float64), hypothesis.TrimFloat(maxRetriesSpanMs))
}
