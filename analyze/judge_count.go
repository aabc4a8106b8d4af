package analyze

import (
	"database/sql"
	"fmt"

	"github.com/rewind-dev/rewind/store"
)

// maxExpanded bounds the requests that rows with count > 1 stand for in
// the analyses that write such a row out once per request (thresholds'
// trends, judge's short and count steps, omission's quantiles): 400 rows
// of count 100,000 took 65 s and 5.5 GB, count 10^8 a 512 GiB vector.
// docs/limits.md.
const maxExpanded = 10_000_000

// checkExpansion refuses an experiment whose rows with count > 1 stand for
// more than maxExpanded requests, naming the largest such row.
func checkExpansion(db store.Querier, exp, analysis string) error {
	var total sql.NullFloat64
	if err := db.QueryRow(`SELECT sum(count)::DOUBLE FROM requests WHERE experiment = ? AND count > 1`, exp).Scan(&total); err != nil {
		return err
	}
	if !total.Valid || total.Float64 <= maxExpanded {
		return nil
	}
	var run string
	var seq, line, count int64
	if err := db.QueryRow(`SELECT run, seq, line, count FROM requests WHERE experiment = ? ORDER BY count DESC, run, seq LIMIT 1`, exp).Scan(&run, &seq, &line, &count); err != nil {
		return err
	}
	return fmt.Errorf("experiment %q: its rows with count > 1 stand for %.0f requests, more than the %d that %s writes out one by one (the largest, run %q seq %d from line %d, has count %d): it needs one row per request, or fewer, larger steps",
		exp, total.Float64, maxExpanded, analysis, run, seq, line, count)
}
