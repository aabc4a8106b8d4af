package replay

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"strconv"

	"github.com/rewind-dev/rewind/analyze"
)

// DB is what replay needs of a database: *sql.DB, *sql.Conn and *sql.Tx
// satisfy it.
type DB interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// DefaultMargin is the margin when neither the flag nor the experiment's
// stored parameters give one.
var DefaultMargin = big.NewRat(1, 10)

// Config says which recorded run to replay, and with which rule.
type Config struct {
	Experiment string         // "" when the database holds one
	Window     analyze.Window // zero: the experiment's stored window
	Margin     *big.Rat       // nil: the stored "margin", else DefaultMargin
	StopAfter  int            // 0: 1
}

// Recording is an experiment run cut into windows, with the rule that
// judges it: what Walk replays.
type Recording struct {
	Experiment string
	Window     analyze.Window
	Rule       Rule
	Windows    []Window // the experiment run's windows, in order
}

// Load reads the experiment run's windows and the control run's baseline
// from the SQL windows macro.
func Load(ctx context.Context, db DB, c Config) (*Recording, error) {
	e, err := analyze.FindExperiment(analyze.WithContext(ctx, db), c.Experiment)
	if err != nil {
		return nil, err
	}
	rec := &Recording{Experiment: e.Name, Window: c.Window}
	if rec.Window.IsZero() {
		if rec.Window, err = storedWindow(e); err != nil {
			return nil, err
		}
	}
	if rec.Rule.Margin, err = margin(e, c.Margin); err != nil {
		return nil, err
	}
	rec.Rule.StopAfter = max(c.StopAfter, 1)
	if rec.Rule.Baseline, err = ControlBaseline(ctx, db, e.Name, rec.Window); err != nil {
		return nil, err
	}
	if rec.Windows, err = Windows(ctx, db, e.Name, "experiment", rec.Window); err != nil {
		return nil, err
	}
	if len(rec.Windows) == 0 {
		return nil, fmt.Errorf("experiment %q has no requests with role experiment: nothing to replay", e.Name)
	}
	return rec, nil
}

// ControlBaseline is the mean ok share of the control run's windows, exact.
func ControlBaseline(ctx context.Context, db DB, exp string, w analyze.Window) (*big.Rat, error) {
	ws, err := Windows(ctx, db, exp, "control", w)
	if err != nil {
		return nil, err
	}
	if len(ws) == 0 {
		return nil, fmt.Errorf("experiment %q has no requests with role control: no baseline", exp)
	}
	return Baseline(ws)
}

// Windows returns the per-window counts of one role's run, from the SQL
// windows macro (so replay cuts windows exactly as the analyses do).
func Windows(ctx context.Context, db DB, exp, role string, w analyze.Window) ([]Window, error) {
	var n, ms any
	if w.N > 0 {
		n = w.N
	} else {
		ms = w.Ms
	}
	rows, err := db.QueryContext(ctx, `SELECT window_no, first_t_ms, last_t_ms, requests, ok, damage
		FROM windows(?, ?, size_n := ?, size_ms := ?)`, exp, role, n, ms)
	if err != nil {
		return nil, fmt.Errorf("%s windows of %q: %w", role, exp, err)
	}
	defer rows.Close()
	var out []Window
	for rows.Next() {
		var x Window
		var first, last sql.NullFloat64
		if err := rows.Scan(&x.N, &first, &last, &x.Requests, &x.OK, &x.Damage); err != nil {
			return nil, err
		}
		x.FirstTMs, x.LastTMs, x.HasTMs = first.Float64, last.Float64, first.Valid && last.Valid
		out = append(out, x)
	}
	return out, rows.Err()
}

// storedWindow is the window the experiment stores: a count under "window",
// a duration in ms under "window_ms" (as the analyses read it).
func storedWindow(e analyze.Experiment) (analyze.Window, error) {
	if n, ok := e.Number("window"); ok && n > 0 && n == float64(int64(n)) {
		return analyze.Window{N: int64(n)}, nil
	}
	if ms, ok := e.Number("window_ms"); ok && ms > 0 {
		return analyze.Window{Ms: ms}, nil
	}
	return analyze.Window{}, fmt.Errorf("experiment %q stores no window size: give --window (e.g. 40 or 1s)", e.Name)
}

// margin is the flag's margin, else the stored one, else DefaultMargin. A
// stored margin is a JSON number; its shortest decimal form is read exactly,
// as stop-damage does.
func margin(e analyze.Experiment, flag *big.Rat) (*big.Rat, error) {
	if flag != nil {
		return flag, nil
	}
	if m, ok := e.Number("margin"); ok {
		r, err := ParseMargin(strconv.FormatFloat(m, 'f', -1, 64))
		if err != nil {
			return nil, fmt.Errorf("experiment %q: stored margin %w", e.Name, err)
		}
		return r, nil
	}
	return DefaultMargin, nil
}

// RecordedBaseline is the control baseline of a recorded experiment for
// rewind watch, with the window it was computed on: w, or the experiment's
// stored window when w is zero.
func RecordedBaseline(ctx context.Context, db DB, name string, w analyze.Window) (analyze.Window, *big.Rat, error) {
	e, err := analyze.FindExperiment(analyze.WithContext(ctx, db), name)
	if err != nil {
		return w, nil, err
	}
	if w.IsZero() {
		if w, err = storedWindow(e); err != nil {
			return w, nil, err
		}
	}
	b, err := ControlBaseline(ctx, db, e.Name, w)
	return w, b, err
}
