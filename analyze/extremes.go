package analyze

import (
	"database/sql"
	"math"

	"github.com/rewind-dev/rewind/store"
)

// extremes are the requests table's smallest and largest send and largest
// latency, over every experiment. DuckDB answers them from the table's
// statistics without a scan, so the checks that refuse a parameter too
// fine for an experiment's span (burn-rate's windows, judge's steps,
// thresholds' ticks, retries' sums) test these bounds first and read the
// experiment's own rows only where a bound does not pass (issue 41).
type extremes struct {
	lo, hi, lat sql.NullFloat64 // min(t_ms), max(t_ms), max(latency_ms)
}

// tableExtremes reads the requests table's extremes.
func tableExtremes(db store.Querier) (extremes, error) {
	var x extremes
	err := db.QueryRow(`SELECT min(t_ms), max(t_ms), max(latency_ms) FROM requests`).Scan(&x.lo, &x.hi, &x.lat)
	return x, err
}

// sendSpan bounds any experiment's span of t_ms (max - min); invalid when
// no row has a send time.
func (x extremes) sendSpan() sql.NullFloat64 {
	return sql.NullFloat64{Float64: x.hi.Float64 - x.lo.Float64, Valid: x.lo.Valid}
}

// lastEnd bounds any request's end (send plus latency): a NULL latency
// reads 0, and a negative one only shortens an end.
func (x extremes) lastEnd() float64 {
	return x.hi.Float64 + math.Max(x.lat.Float64, 0)
}

// endSpan bounds any experiment's span from its first send to its last
// end; invalid when no row has a send time.
func (x extremes) endSpan() sql.NullFloat64 {
	return sql.NullFloat64{Float64: x.lastEnd() - x.lo.Float64, Valid: x.lo.Valid}
}
