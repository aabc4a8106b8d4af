package analyze

import (
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// PeaksOptions steer Peaks.
type PeaksOptions struct {
	Experiment    string
	ResolutionsMs []int64  // bucket lengths in whole ms; default DefaultResolutionsMs
	Sliding       bool     // also the fullest sliding window [t, t+res)
	By            []string // fields whose values split each run into groups (docs/by.md)
}

// DefaultResolutionsMs are the two resolutions the seed compares.
var DefaultResolutionsMs = []int64{100, 1000}

// Peaks finds each run's fullest aligned bucket at every resolution: one row
// per run and resolution. Without Sliding the sliding columns are left out.
func Peaks(db store.Querier, o PeaksOptions) (*Result, error) {
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, store.WithSuitable(db, err, "t_ms IS NOT NULL")
	}
	g, err := groupBy(db, e.Name, o.By)
	if err != nil {
		return nil, err
	}
	var timed bool
	if err := db.QueryRow(`SELECT EXISTS (SELECT 1 FROM requests WHERE experiment = ? AND t_ms IS NOT NULL)`, e.Name).Scan(&timed); err != nil {
		return nil, err
	}
	if !timed {
		return nil, noTimesError(e.Name)
	}
	res, err := resolutions(o.ResolutionsMs)
	if err != nil {
		return nil, err
	}
	res, note, err := finerThanData(db, e.Name, res)
	if err != nil {
		return nil, err
	}
	r, err := peaksQuery(db, e.Name, g, res, o.Sliding)
	if r != nil && note != nil {
		r.Notes = append(r.Notes, note)
	}
	return r, err
}

// peaksQuery runs the library's peaks (peaks_by with a group).
func peaksQuery(db store.Querier, exp string, g grouping, res []int64, sliding bool) (*Result, error) {
	cols := "run, resolution_ms, peak, peak_at_ms, total"
	if sliding {
		cols += ", sliding_peak, sliding_at_ms"
	}
	q := fmt.Sprintf(`SELECT %s FROM %s, %s, sliding := ?)`, g.sel(cols), g.call("peaks"), bigintList(res))
	return Query(db, "peaks", store.Units("peaks"), q, exp, sliding)
}

// noTimesError refuses peaks over an experiment without times.
func noTimesError(exp string) error {
	return fmt.Errorf("experiment %q has no times (t_ms or ts): peaks counts requests per time bucket", exp)
}

// finerThanData leaves out the resolutions finer than the experiment's
// times (recorded per file at ingest: k6's CSV has whole seconds): a 100 ms
// bucket over whole-second times holds a second's requests or none, and a
// "10x" peak ratio between them would be an artifact of the data.
func finerThanData(db store.Querier, exp string, res []int64) ([]int64, *param.Error, error) {
	var data sql.NullFloat64
	err := db.QueryRow(`SELECT max(resolution_ms) FROM files WHERE list_contains(string_split(experiment, ', '), ?)`, exp).Scan(&data)
	if err != nil || !data.Valid {
		return res, nil, nil // a database from before resolutions were recorded
	}
	var kept, dropped []string
	var out []int64
	for _, r := range res {
		if float64(r) < data.Float64 {
			dropped = append(dropped, ResolutionName(r))
			continue
		}
		out = append(out, r)
		kept = append(kept, ResolutionName(r))
	}
	if len(dropped) == 0 {
		return res, nil, nil
	}
	dataName := ResolutionName(int64(data.Float64))
	if len(out) == 0 {
		return nil, nil, param.Errorf("resolutions", "the log's times are multiples of %s: no peak at %s can be told from it (ask for {resolutions} %s or coarser)",
			dataName, strings.Join(dropped, ", "), dataName)
	}
	return out, param.Textf("peaks at %s left out: the log's times are multiples of %s, so a finer bucket only shows rounding", strings.Join(dropped, ", "), dataName), nil
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
