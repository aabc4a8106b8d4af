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
	every := o.Every
	if every == 0 {
		every = DefaultEvery
	}
	check := func(p string, d time.Duration) error {
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
	if o.Window == 0 || o.Sliding {
		return check("every", every)
	}
	return check("window", o.Window)
}
