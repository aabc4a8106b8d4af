package replay

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// DefaultMargin is the margin when neither the flag nor the experiment's
// stored parameters give one.
var DefaultMargin = hypothesis.DefaultMarginRat()

// Config says which recorded run to replay, and with which rule.
type Config struct {
	Experiment string            // "" when the database holds one
	Window     hypothesis.Window // zero: the experiment's stored window
	Margin     *big.Rat          // nil: the stored "margin", else DefaultMargin (ok_share, error_rate)
	StopAfter  int               // 0: 1
	Hypothesis hypothesis.Hypothesis
	Bound      *hypothesis.Bound // replaces Margin; nil: the margin, or hypothesis.DefaultTolerance
	// Burn, when set, stops the walk where the first burn-rate alert fires
	// (--stop-on burn-rate), from the burn_rate macro; Good is its good
	// expression ("" is outcome = 'ok'). The windows are still judged by
	// the hypothesis when a baseline is at hand.
	Burn *BurnConfig
	Good string
}

// Recording is an experiment run cut into windows, with the rule that
// judges it: what Walk replays.
type Recording struct {
	Experiment string
	Window     hypothesis.Window
	Rule       Rule
	Sides      hypothesis.Sides
	Windows    []Window // the treatment side's windows, in order
}

// Load reads the treatment side's windows and the baseline side's baseline
// from the SQL side_windows macro, for the hypothesis of c.
func Load(ctx context.Context, db store.Handle, c Config) (*Recording, error) {
	q := store.WithContext(ctx, db)
	e, err := store.FindExperiment(q, c.Hypothesis.ExperimentIn(q, c.Experiment))
	if err != nil {
		return nil, err
	}
	rec := &Recording{Experiment: e.Name, Window: c.Window}
	if rec.Window.IsZero() {
		if rec.Window, err = storedWindow(e); err != nil {
			return nil, err
		}
	}
	r := &rec.Rule
	r.Metric, r.Bound, r.StopAfter = c.Hypothesis.Metric, c.Bound, max(c.StopAfter, 1)
	metric := r.metric()
	if r.Bound == nil {
		m, err := margin(e, c.Margin)
		if err != nil {
			return nil, err
		}
		if hypothesis.MetricUnit(metric) == "share" {
			r.Margin = m
		}
		if metric != "ok_share" { // ok_share keeps the seed's rule on the margin
			b, err := hypothesis.Threshold(metric, nil, m.FloatString(6))
			if err != nil {
				return nil, err
			}
			r.Bound = &b
		}
	}
	absolute := r.Bound != nil && !r.Bound.Relative()
	if rec.Sides, err = hypothesis.ResolveSides(q, e, c.Hypothesis, absolute || c.Burn != nil); err != nil {
		return nil, err
	}
	r.Unjudged = !rec.Sides.HasControl && !absolute
	ctl, treat, err := hypothesisWindows(ctx, db, rec.Sides, rec.Window)
	if err != nil {
		return nil, err
	}
	if rec.Sides.HasControl && !absolute {
		if r.Baseline, err = Baseline(ctl, metric); err != nil {
			return nil, err
		}
	}
	if rec.Windows = treat; len(treat) == 0 {
		return nil, fmt.Errorf("%s has no requests in windows of %s: nothing to replay", rec.Sides.Treatment, rec.Window)
	}
	r.Damage = DamageFailed
	for _, w := range rec.Windows {
		if w.Tagged > 0 {
			r.Damage = DamageTagged
		}
	}
	if c.Burn != nil {
		if err := rec.burnStop(ctx, db, *c.Burn, c.Good); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// burnStop finds where the first burn-rate alert fires on the treatment
// run (analyze burn-rate's numbers) and makes the stop the window of the
// first request sent after that moment (watch decides the alert when that
// request arrives), else the last window (it fired on the requests still
// in flight). Times compare in integer ns, as the SQL rounds them.
func (rec *Recording) burnStop(ctx context.Context, db store.Handle, c BurnConfig, good string) error {
	q := store.WithContext(ctx, db)
	side := rec.Sides.Treatment
	run := side.Run
	if run == "" {
		runs, err := sideRuns(ctx, db, side)
		if err != nil {
			return err
		}
		if len(runs) != 1 {
			return param.Errorf("stop-on", "{stop-on} burn-rate follows one run; %s has %d (%s): name one with {treatment}", side, len(runs), strings.Join(runs, ", "))
		}
		run = runs[0]
	}
	fires, err := burnFires(q, side.Experiment, run, hypothesis.BurnQuery{SLO: c.SLO, Rules: c.Rules,
		Good: good, Step: c.Step, Partial: c.Partial})
	if err != nil {
		return err
	}
	rec.Rule.StopWindow = math.MaxInt64 // judged by the alert alone: no alert, no stop
	rec.Rule.BurnText = c.Text()
	f := firstFire(fires)
	if f == nil {
		return nil
	}
	var origin float64
	if err := db.QueryRowContext(ctx, `SELECT min(t_ms) FROM requests WHERE experiment = ? AND run = ?`, side.Experiment, run).Scan(&origin); err != nil {
		return err
	}
	rec.Rule.Burn = f
	rec.Rule.StopWindow = rec.Windows[len(rec.Windows)-1].N
	at := nsOf(f.AtMs)
	for _, w := range rec.Windows {
		if w.HasTMs && nsOf(w.LastTMs)-nsOf(origin) > at {
			rec.Rule.StopWindow = w.N
			break
		}
	}
	return nil
}

// Text names the rules and the SLO, e.g. "5m/1h>14.4, 30m/6h>6 at SLO 0.999".
func (c BurnConfig) Text() string {
	rules := c.Rules
	if len(rules) == 0 {
		rules = hypothesis.DefaultBurnRules
	}
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = r.Name
	}
	return "burn-rate " + strings.Join(names, ", ") + " at SLO " + string(c.SLO)
}

func sideRuns(ctx context.Context, db store.Handle, s hypothesis.Side) ([]string, error) {
	return store.QueryStrings(store.WithContext(ctx, db),
		`SELECT DISTINCT run FROM requests WHERE experiment = ? AND role = ? ORDER BY run`, s.Experiment, s.Role)
}

// SideBaseline is the mean of a side's window values of a metric, exact.
func SideBaseline(ctx context.Context, db store.Handle, s hypothesis.Side, w hypothesis.Window, metric string) (*big.Rat, error) {
	ws, err := SideWindows(ctx, db, s, w, metric)
	if err != nil {
		return nil, err
	}
	if len(ws) == 0 {
		return nil, fmt.Errorf("the baseline side, %s, has no requests: no baseline", s)
	}
	return Baseline(ws, metric)
}

// SideWindows returns a side's windows with the metric's exact value, from
// the SQL side_windows macro.
func SideWindows(ctx context.Context, db store.Handle, s hypothesis.Side, w hypothesis.Window, metric string) ([]Window, error) {
	if err := hypothesis.CheckMetric(metric); err != nil {
		return nil, err
	}
	out, err := readWindows(ctx, db, fmt.Sprintf(`SELECT '', %s FROM side_windows(?, size_n := ?, size_ms := ?, metric := '%s'%s)`,
		windowColumns(metric), metric, s.WindowArgs()), s.Experiment, w, metric)
	if err != nil {
		return nil, fmt.Errorf("windows of %s: %w", s, err)
	}
	if len(out[""]) == 0 {
		return nil, fmt.Errorf("%s has no requests in windows of %s: nothing to replay", s, w)
	}
	return out[""], nil
}

// hypothesisWindows reads both sides' windows in one query.
func hypothesisWindows(ctx context.Context, db store.Handle, s hypothesis.Sides, w hypothesis.Window) (ctl, treat []Window, err error) {
	out, err := readWindows(ctx, db, fmt.Sprintf(`SELECT role, %s FROM _hyp_windows(?, size_n := ?, size_ms := ?%s)`,
		windowColumns(s.Metric), s.Args()), s.Treatment.Experiment, w, s.Metric)
	if err != nil {
		return nil, nil, fmt.Errorf("windows of %s and %s: %w", s.Control, s.Treatment, err)
	}
	return out["control"], out["experiment"], nil
}

// windowColumns are what readWindows scans; a share is taken from the
// counts, so its value is not read (converting 128-bit integers to text
// for 125 k windows cost a tenth of a second at 10 M rows).
func windowColumns(metric string) string {
	value := "value_num::VARCHAR, value_den::VARCHAR"
	if hypothesis.MetricUnit(metric) == "share" {
		value = "NULL, NULL"
	}
	return "window_no, first_t_ms, last_t_ms, requests, ok, damage, tagged, " + value
}

// readWindows reads windows by side (the first column). The columns are
// those windowColumns names, with the side first. A replay reads 250 k
// windows at 10 M rows: as Arrow batches when db lends its connection,
// else (a *sql.Tx) row by row.
func readWindows(ctx context.Context, db store.Handle, q, exp string, w hypothesis.Window, metric string) (map[string][]Window, error) {
	var n, ms any
	if w.N > 0 {
		n = w.N
	} else {
		ms = w.Ms
	}
	args := []any{exp, n, ms}
	out := map[string][]Window{}
	err := store.WithContext(ctx, db).Arrow(q, args, func(rb arrow.RecordBatch) error {
		return appendWindows(out, rb, metric)
	})
	if errors.Is(err, store.ErrNoArrow) {
		out, err = scanWindows(ctx, db, q, args, metric)
	}
	if err != nil {
		return nil, err
	}
	inOrder(out)
	return out, nil
}

// inOrder puts each side's windows in window order. Each side comes out of
// side_windows in order and the sides are told apart by their first
// column, so no ORDER BY over both sides is asked of DuckDB (sorting 2.5 M
// windows at 100 M rows); a side that arrives out of order anyway is
// sorted here.
func inOrder(out map[string][]Window) {
	for _, ws := range out {
		if !slices.IsSortedFunc(ws, byWindowNo) {
			slices.SortFunc(ws, byWindowNo)
		}
	}
}

func byWindowNo(a, b Window) int { return cmp.Compare(a.N, b.N) }

// appendWindows appends a batch's windows to their sides.
func appendWindows(out map[string][]Window, rb arrow.RecordBatch, metric string) error {
	if rb.NumCols() != 10 {
		return fmt.Errorf("windows: %d columns, want 10", rb.NumCols())
	}
	side, ok1 := rb.Column(0).(interface{ Value(int) string })
	first, ok2 := rb.Column(2).(*array.Float64)
	last, ok3 := rb.Column(3).(*array.Float64)
	var counts [5]*array.Int64 // window_no, requests, ok, damage, tagged
	okN := true
	for i, c := range []int{1, 4, 5, 6, 7} {
		var ok bool
		counts[i], ok = rb.Column(c).(*array.Int64)
		okN = okN && ok
	}
	if !ok1 || !ok2 || !ok3 || !okN {
		return fmt.Errorf("windows: unexpected column types %s", rb.Schema())
	}
	num, den := rb.Column(8), rb.Column(9)
	numS, _ := num.(interface{ Value(int) string })
	denS, _ := den.(interface{ Value(int) string })
	withValue := hypothesis.MetricUnit(metric) != "share" && numS != nil && denS != nil
	// the rows of a side come in runs: its slice is taken from the map
	// when the side changes, and put back then and at the end
	var key string
	var ws []Window
	have := false
	for i := 0; i < int(rb.NumRows()); i++ {
		x := Window{N: counts[0].Value(i), Requests: counts[1].Value(i), OK: counts[2].Value(i),
			Damage: counts[3].Value(i), Tagged: counts[4].Value(i),
			HasTMs: first.IsValid(i) && last.IsValid(i)}
		if first.IsValid(i) { // a null's slot holds anything
			x.FirstTMs = first.Value(i)
		}
		if last.IsValid(i) {
			x.LastTMs = last.Value(i)
		}
		if withValue && num.IsValid(i) && den.IsValid(i) {
			x.Value = windowValue(numS.Value(i), denS.Value(i))
		}
		// a batch's strings live in its buffers: the side kept as a key
		// is a copy (a map assignment stores the key it is given)
		if s := side.Value(i); !have || s != key {
			if have {
				out[key] = ws
			}
			key, have = strings.Clone(s), true
			ws = sideSlice(out, key)
		}
		ws = append(ws, x)
	}
	if have {
		out[key] = ws
	}
	return nil
}

// addWindow appends x to its side's windows.
func addWindow(out map[string][]Window, side string, x Window) {
	out[side] = append(sideSlice(out, side), x)
}

// sideSlice is a side's windows so far, or room for its first 4096.
func sideSlice(out map[string][]Window, side string) []Window {
	if ws, ok := out[side]; ok {
		return ws
	}
	return make([]Window, 0, 4096)
}

// windowValue is a window's exact value from its numerator and
// denominator as text (HUGEINTs).
func windowValue(num, den string) *big.Rat {
	v, _ := new(big.Rat).SetString(num + "/" + den)
	return v
}

// scanWindows is readWindows row by row.
func scanWindows(ctx context.Context, db store.Handle, q string, args []any, metric string) (map[string][]Window, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]Window{}
	// the scan's targets are declared once: as arguments they escape
	var x Window
	var side string
	var first, last sql.NullFloat64
	var num, den sql.NullString
	for rows.Next() {
		x = Window{}
		if err := rows.Scan(&side, &x.N, &first, &last, &x.Requests, &x.OK, &x.Damage, &x.Tagged, &num, &den); err != nil {
			return nil, err
		}
		x.FirstTMs, x.LastTMs, x.HasTMs = first.Float64, last.Float64, first.Valid && last.Valid
		if num.Valid && den.Valid && hypothesis.MetricUnit(metric) != "share" {
			x.Value = windowValue(num.String, den.String)
		}
		addWindow(out, side, x)
	}
	return out, rows.Err()
}

// storedWindow is the window the experiment stores: a count under "window",
// a duration in ms under "window_ms" (as the analyses read it).
func storedWindow(e store.Experiment) (hypothesis.Window, error) {
	if n, ok := e.Number("window"); ok && n > 0 && n == float64(int64(n)) {
		return hypothesis.Window{N: int64(n)}, nil
	}
	if ms, ok := e.Number("window_ms"); ok && ms > 0 {
		return hypothesis.Window{Ms: ms}, nil
	}
	return hypothesis.Window{}, param.Errorf("window", "experiment %q stores no window size: give {window} (e.g. 40 or 1s)", e.Name)
}

// margin is the flag's margin, else the stored one, else DefaultMargin. A
// stored margin is a JSON number; its shortest decimal form is read exactly,
// as stop-damage does.
func margin(e store.Experiment, flag *big.Rat) (*big.Rat, error) {
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

// RecordedBaseline is the baseline of a recorded experiment for rewind
// watch, with the window it was computed on: w, or the experiment's stored
// window when w is zero. The baseline side is run ref (RUN or
// EXPERIMENT/RUN), or the experiment's control role when ref is empty.
func RecordedBaseline(ctx context.Context, db store.Handle, name, ref string, w hypothesis.Window, metric string) (hypothesis.Window, *big.Rat, error) {
	q := store.WithContext(ctx, db)
	e, err := store.FindExperiment(q, name)
	if err != nil {
		return w, nil, err
	}
	if w.IsZero() {
		if w, err = storedWindow(e); err != nil {
			return w, nil, err
		}
	}
	s, err := hypothesis.ResolveSide(q, e.Name, ref, "control")
	if err != nil {
		return w, nil, err
	}
	if err := hypothesis.RequireSideLatency(q, metric, s); err != nil {
		return w, nil, err
	}
	b, err := SideBaseline(ctx, db, s, w, metric)
	return w, b, err
}

// burnFires are the rules that fire on run, from the burn_rate macro as
// analyze burn-rate calls it (the same checks of good first).
func burnFires(q store.Querier, exp, run string, b hypothesis.BurnQuery) ([]BurnFire, error) {
	if b.SLO == "" {
		return nil, fmt.Errorf("burn rate needs an SLO, e.g. 99.9%%")
	}
	if b.Good != "" {
		if err := hypothesis.CheckGood(q, b.Good, exp); err != nil {
			return nil, err
		}
	}
	if err := hypothesis.RequireGoodLatency(q, b.Good, "experiment = ?", exp); err != nil {
		return nil, err
	}
	rows, err := q.Query(`SELECT run, rule, fired_at_ms, requests_before, failed_before FROM (`+b.SQL()+`)`, exp)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var fires []BurnFire
	n := 0
	for ; rows.Next(); n++ {
		var r string
		var at sql.NullFloat64
		var before, failed sql.NullInt64
		f := BurnFire{}
		if err := rows.Scan(&r, &f.Rule, &at, &before, &failed); err != nil {
			return nil, err
		}
		if r == run && at.Valid {
			f.AtMs, f.Requests, f.FailedBefore = at.Float64, before.Int64, failed.Int64
			fires = append(fires, f)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("experiment %q has no t_ms: burn rates are evaluated over time and need send times", exp)
	}
	return fires, nil
}
