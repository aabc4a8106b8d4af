package analyze

import (
	"database/sql"
	"math"
	"time"

	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// The interval trades two errors: too short and each holds so few requests
// that its error rate and quantiles are noise; too long and a change is
// placed only to within an interval. The default gives the busiest run
// about changesTarget requests per interval (1 s at a few hundred requests
// a second), rounded up to 1, 2 or 5 times a power of ten ms, never finer
// than the log's time resolution, and no more than changesMaxIntervals per
// run (the segmentation's cost grows with the intervals, not the rows).
const (
	changesTarget       = 200
	changesMaxIntervals = 1000
	changesMinMean      = 20     // requests per interval below which a run is too sparse to tell
	changesMaxGiven     = 20_000 // intervals per run an {interval} may ask for (PELT is quadratic at worst)
)

// interval is the interval chosen and what goes with it.
type interval struct {
	ms     int64
	resMs  float64    // the log's time resolution (files.resolution_ms), 0 when unknown
	origin *time.Time // the ts of t_ms 0, when the times came from ts
	notes  []*param.Error
}

// changesInterval checks or chooses the interval of experiment exp.
func changesInterval(db store.Querier, exp string, want int64) (interval, error) {
	var iv interval
	var res sql.NullFloat64
	var origin sql.NullTime
	err := db.QueryRow(`SELECT max(resolution_ms), min(t_origin) FROM files WHERE list_contains(string_split(experiment, ', '), ?)`, exp).Scan(&res, &origin)
	if err != nil {
		return iv, err
	}
	if res.Valid {
		iv.resMs = res.Float64
	}
	if origin.Valid {
		t := origin.Time.UTC()
		iv.origin = &t
	}
	var rows sql.NullInt64
	var span sql.NullFloat64
	err = db.QueryRow(`SELECT max(n), max(span) FROM (SELECT sum(count) AS n, max(t_ms) - min(t_ms) AS span
		FROM requests WHERE experiment = ? AND t_ms IS NOT NULL GROUP BY run)`, exp).Scan(&rows, &span)
	if err != nil {
		return iv, err
	}
	if !rows.Valid {
		return iv, param.Errorf("", "experiment %q has no times (t_ms or ts): changes reads requests per interval of time", exp)
	}
	if want != 0 {
		if want < 0 || float64(want) < iv.resMs {
			return iv, param.Errorf("interval", "{interval} %s: the log's times are multiples of %s; give {interval} %s or longer",
				ResolutionName(want), ResolutionName(int64(math.Ceil(iv.resMs))), ResolutionName(int64(math.Ceil(iv.resMs))))
		}
		if n := span.Float64 / float64(want); n > changesMaxGiven {
			return iv, param.Errorf("interval", "{interval} %s: a run spans %s, %.0f intervals; at most %d can be segmented (give {interval} %s or longer)",
				ResolutionName(want), ResolutionName(int64(span.Float64)), n, changesMaxGiven, ResolutionName(niceUp(span.Float64/changesMaxGiven)))
		}
		iv.ms = want
		return iv, nil
	}
	need := math.Max(iv.resMs, 1)
	if span.Float64 > 0 {
		need = math.Max(need, changesTarget*span.Float64/float64(rows.Int64))
		need = math.Max(need, span.Float64/changesMaxIntervals)
	}
	iv.ms = niceUp(need)
	iv.notes = append(iv.notes, param.Textf("interval %s, chosen from the log's rate (about %d requests an interval in its busiest run); give {interval} to choose another",
		ResolutionName(iv.ms), int64(math.Round(float64(rows.Int64)*float64(iv.ms)/math.Max(span.Float64, float64(iv.ms))))))
	return iv, nil
}

// niceUp is the smallest 1, 2 or 5 times a power of ten ms at or above x.
func niceUp(x float64) int64 {
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if float64(m*p) >= x {
				return m * p
			}
		}
		if p > 1e15 {
			return p
		}
	}
}
