package analyze

import (
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// maxTicks bounds the evaluations and windows of one run (docs/limits.md):
// every 1 ns over a minute is 6·10^10 of them, past 4 GB before the first
// answer, and with a memory limit a spill until the disk is full.
const maxTicks = 1_000_000

// checkTicks refuses an {every} or {window} that cuts the longest run into
// more than maxTicks evaluations or windows.
func (o ThresholdsOptions) checkTicks(db store.Querier, exp string) error {
	var durNs sql.NullFloat64
	q := fmt.Sprintf(`SELECT max(dur_ns)::DOUBLE FROM _th_runs(?, %s)`, sqllit.MsOrNull(o.Duration))
	if err := db.QueryRow(q, exp).Scan(&durNs); err != nil || !durNs.Valid {
		return err
	}
	p, d := o.tick()
	n := math.Floor(durNs.Float64 / float64(d))
	if n <= maxTicks {
		return nil
	}
	over, what := "the longest run's", "windows"
	if o.Duration > 0 {
		over = "{duration},"
	}
	if p == "every" {
		what = "evaluations"
	}
	return param.Errorf(p, "{"+p+"} %s over "+over+" %s ms makes %s %s, more than %d: a longer {"+p+"}", d,
		hypothesis.TrimFloat(durNs.Float64/1e6), hypothesis.TrimFloat(n), what, maxTicks)
}

// tick is what checkTicks counts a run in: the option's name and length.
func (o ThresholdsOptions) tick() (string, time.Duration) {
	if o.Window > 0 && !o.Sliding {
		return "window", o.Window
	}
	if o.Every == 0 {
		return "every", DefaultEvery
	}
	return "every", o.Every
}

// fewTicks tells, without reading the rows, that checkTicks would pass:
// every run's clock lies between the smallest send (or k6 point) and the
// largest send plus the largest latency (or point) of the whole tables,
// whose extremes DuckDB takes from its statistics when nothing filters
// them; with {duration}, every run lasts at least that long and no run's
// clock is longer than the bound. A bound near the limit, or none (no
// times), leaves it to checkTicks (a pass over every request: issue 41).
func (o ThresholdsOptions) fewTicks(db store.Querier) (bool, error) {
	x, err := tableExtremes(db)
	if err != nil {
		return false, err
	}
	var elo, ehi sql.NullFloat64
	if err := db.QueryRow(`SELECT min(t_ms), max(t_ms) FROM events`).Scan(&elo, &ehi); err != nil {
		return false, err
	}
	if !x.lo.Valid {
		return false, nil
	}
	from, to := x.lo.Float64, x.lastEnd()
	if elo.Valid && ehi.Valid {
		from, to = math.Min(from, elo.Float64), math.Max(to, ehi.Float64)
	}
	spanMs := math.Max(to-from, o.Duration.Seconds()*1000) + 1 // 1 ms for the rounding to ns
	_, d := o.tick()
	return spanMs*1e6/float64(d) < maxTicks, nil
}
