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
// can take, instead of DuckDB's cast error.
func checkRetriesSpan(db store.Querier, exp string) error {
	var run string
	var lo, hi sql.NullFloat64
	err := db.QueryRow(`SELECT run, min(t_ms), max(t_ms) FROM requests WHERE experiment = ? GROUP BY run
		HAVING max(t_ms) - min(t_ms) > ? ORDER BY run LIMIT 1`, exp, maxRetriesSpanMs).Scan(&run, &lo, &hi)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("run %q: its t_ms span %s to %s ms, more than the %s ms (about 28 years) retries takes in one run",
		run, hypothesis.TrimFloat(lo.Float64), hypothesis.TrimFloat(hi.Float64), hypothesis.TrimFloat(maxRetriesSpanMs))
}
