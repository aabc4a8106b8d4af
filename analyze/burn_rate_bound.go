package analyze

import (
	"database/sql"
	"math"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// checkBurnWindows refuses a rule whose short window cuts the
// experiment's span into more than maxTicks windows (docs/limits.md):
// 1ns/1s over a minute of log held 3 GB for an answer that 1ms already
// gives. The whole table's extremes, which DuckDB takes from its
// statistics without a scan, bound the experiment's span (the largest
// send plus the largest latency, less the smallest send): only where that
// bound does not pass is the experiment's own span read (a pass over its
// requests, a tenth of burn-rate's time at 10 M rows: issue 41).
func checkBurnWindows(db store.Querier, exp string, rules []hypothesis.BurnRule) error {
	x, err := tableExtremes(db)
	if err != nil {
		return err
	}
	if !x.lo.Valid {
		return nil // no send time at all: no window
	}
	if checkBurnSpan(x.endSpan(), rules) == nil {
		return nil
	}
	var span sql.NullFloat64
	err = db.QueryRow(`SELECT max(t_ms + coalesce(latency_ms, 0)) - min(t_ms) FROM requests WHERE experiment = ?`, exp).Scan(&span)
	if err != nil {
		return err
	}
	return checkBurnSpan(span, rules)
}

// checkBurnWindows's check of the experiment's span (the last end less the
// first send, in ms).
func checkBurnSpan(span sql.NullFloat64, rules []hypothesis.BurnRule) error {
	if !span.Valid {
		return nil
	}
	for _, r := range rules {
		if n := math.Floor(span.Float64 / msOf(r.Short)); r.Short > 0 && n > maxTicks {
			return param.Errorf("rules", "{rules} %s: its short window of %s over the experiment's %s ms makes %s windows, more than %d: a longer short window",
				r.Name, r.Short, hypothesis.TrimFloat(span.Float64), hypothesis.TrimFloat(n), maxTicks)
		}
	}
	return nil
}
