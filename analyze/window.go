package analyze

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/store"
)

// Window is a window size: a number of requests (count windows follow
// request order) or a duration (duration windows follow t_ms).
type Window struct {
	N  int64   // requests per window; 0 when a duration
	Ms float64 // window length in ms; 0 when a count
}

// ParseWindow reads "40" (requests) or "1s", "250ms" (a duration).
func ParseWindow(s string) (Window, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n <= 0 {
			return Window{}, fmt.Errorf("window %q: want a positive number of requests", s)
		}
		return Window{N: n}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return Window{}, fmt.Errorf("window %q: want a number of requests (40) or a duration (1s, 250ms)", s)
	}
	return Window{Ms: float64(d) / float64(time.Millisecond)}, nil
}

func (w Window) String() string {
	if w.N > 0 {
		return strconv.FormatInt(w.N, 10)
	}
	return (time.Duration(w.Ms * float64(time.Millisecond))).String()
}

// IsZero reports an unset window.
func (w Window) IsZero() bool { return w.N == 0 && w.Ms == 0 }

// args returns the macro arguments size_n and size_ms.
func (w Window) args() (any, any) {
	if w.N > 0 {
		return w.N, nil
	}
	return nil, w.Ms
}

// windowFor picks the window: the flag, else the experiment's stored window
// (a count under "window", a duration in ms under "window_ms").
func windowFor(e store.Experiment, flag Window) (Window, error) {
	if !flag.IsZero() {
		return flag, nil
	}
	if n, ok := e.Number("window"); ok && n > 0 && n == float64(int64(n)) {
		return Window{N: int64(n)}, nil
	}
	if ms, ok := e.Number("window_ms"); ok && ms > 0 {
		return Window{Ms: ms}, nil
	}
	return Window{}, fmt.Errorf("experiment %q stores no window size: give --window (e.g. 40 or 1s)", e.Name)
}

// addWindowNote warns when duration windows are shorter than the log's
// time resolution (files.resolution_ms: 1000 for an access log's
// whole-second times): such windows hold a second's requests or none, so
// their values show the rounding of the times, not the service.
func addWindowNote(db store.Querier, e store.Experiment, w Window, res *Result) error {
	if w.Ms == 0 {
		return nil
	}
	var data sql.NullFloat64
	err := db.QueryRow(`SELECT max(resolution_ms) FROM files WHERE list_contains(string_split(experiment, ', '), ?)`, e.Name).Scan(&data)
	if err != nil || !data.Valid || w.Ms >= data.Float64 {
		return err
	}
	res.Notes = append(res.Notes, fmt.Sprintf("windows of %s are shorter than the log's time resolution (%s): each holds the requests of whole time steps or none, so the sweep shows the rounding of the times (use --window %s or longer)",
		w, ResolutionName(int64(data.Float64)), ResolutionName(int64(data.Float64))))
	return nil
}
