package analyze

import (
	"database/sql"
	"strings"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// WindowFor picks the window: the flag, else the experiment's stored window
// (a count under "window", a duration in ms under "window_ms").
func WindowFor(e store.Experiment, flag hypothesis.Window) (hypothesis.Window, error) {
	if !flag.IsZero() {
		return flag, nil
	}
	if n, ok := e.Number("window"); ok && n > 0 && n == float64(int64(n)) {
		return hypothesis.Window{N: int64(n)}, nil
	}
	if ms, ok := e.Number("window_ms"); ok && ms > 0 {
		return hypothesis.Window{Ms: ms}, nil
	}
	return hypothesis.Window{}, param.Errorf("window", "experiment %q stores no window size: give {window} (e.g. 40 or 1s)", e.Name)
}

// addWindowNote warns when duration windows are shorter than the log's
// time resolution (files.resolution_ms: 1000 for an access log's
// whole-second times): such windows hold a second's requests or none, so
// their values show the rounding of the times, not the service.
func addWindowNote(db store.Querier, e store.Experiment, w hypothesis.Window, res *Result) error {
	if w.Ms == 0 {
		return nil
	}
	var data sql.NullFloat64
	err := db.QueryRow(`SELECT max(resolution_ms) FROM files WHERE list_contains(string_split(experiment, ', '), ?)`, e.Name).Scan(&data)
	if err != nil || !data.Valid || w.Ms >= data.Float64 {
		return err
	}
	res.Notes = append(res.Notes, param.Textf("windows of %s are shorter than the log's time resolution (%s): each holds the requests of whole time steps or none, so the sweep shows the rounding of the times (use {window} %s or longer)",
		w, ResolutionName(int64(data.Float64)), ResolutionName(int64(data.Float64))))
	return nil
}

// noTMsError refuses duration windows over an experiment without times.
func noTMsError(exp string) error {
	return param.Errorf("window", "experiment %q has no t_ms: duration windows need send times; use a count window such as {window} 40", exp)
}

func experimentWindow(db store.Querier, name string, flag hypothesis.Window) (store.Experiment, hypothesis.Window, error) {
	e, w, err := findWindow(db, name, flag)
	if err != nil {
		return e, w, err
	}
	if w.Ms > 0 {
		var timed int64
		if err := db.QueryRow(`SELECT count(t_ms) FROM requests WHERE experiment = ?`, e.Name).Scan(&timed); err != nil {
			return e, w, err
		}
		if timed == 0 {
			return e, w, noTMsError(e.Name)
		}
	}
	return e, w, nil
}

// findWindow finds experiment name and the window its analyses use (flag,
// or the stored one); the engine's analyses check the times themselves
// (remoteRunsOf).
func findWindow(db store.Querier, name string, flag hypothesis.Window) (store.Experiment, hypothesis.Window, error) {
	e, err := store.FindExperiment(db, name)
	if err != nil {
		return e, hypothesis.Window{}, err
	}
	w, err := WindowFor(e, flag)
	return e, w, err
}

func decimalList(fs []float64) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = hypothesis.DecimalLit(f) + "::DECIMAL(18,6)"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
