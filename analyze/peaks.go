package analyze

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PeaksOptions steer Peaks.
type PeaksOptions struct {
	Experiment    string
	ResolutionsMs []int64 // bucket lengths in whole ms; default DefaultResolutionsMs
	Sliding       bool    // also the fullest sliding window [t, t+res)
}

// DefaultResolutionsMs are the two resolutions the seed compares.
var DefaultResolutionsMs = []int64{100, 1000}

var peaksUnits = map[string]string{
	"resolution_ms": "ms", "peak": "requests", "peak_at_ms": "ms", "total": "requests",
	"sliding_peak": "requests", "sliding_at_ms": "ms",
}

// Peaks finds each run's fullest aligned bucket at every resolution: one row
// per run and resolution. Without Sliding the sliding columns are left out.
func Peaks(db Querier, o PeaksOptions) (*Result, error) {
	e, err := FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, err
	}
	res, err := resolutions(o.ResolutionsMs)
	if err != nil {
		return nil, err
	}
	cols := "run, resolution_ms, peak, peak_at_ms, total"
	if o.Sliding {
		cols += ", sliding_peak, sliding_at_ms"
	}
	q := fmt.Sprintf(`SELECT %s FROM peaks(?, %s, sliding := ?)`, cols, bigintList(res))
	return query(db, "peaks", peaksUnits, q, e.Name, o.Sliding)
}

// resolutions checks and sorts the resolutions, finest first, so that the
// comparison's columns read from fine to coarse.
func resolutions(rs []int64) ([]int64, error) {
	if len(rs) == 0 {
		return DefaultResolutionsMs, nil
	}
	out := slices.Clone(rs)
	for _, r := range out {
		if r <= 0 {
			return nil, fmt.Errorf("resolution %d ms: want a positive number of ms", r)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func bigintList(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]::BIGINT[]"
}

// ResolutionName writes a resolution in ms as a Go duration: 100ms, 1s, 1m0s.
func ResolutionName(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).String()
}
