package report

import (
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// The fault window, shaded on every time chart of the treatment side. It
// comes from the first of:
//
//  1. Options.Start (--start): the treatment run's position where the
//     fault starts, to the run's end;
//  2. Chaos Toolkit actions ingested with the log (events action_start,
//     action_end): the first action's start to the last action's end,
//     rollbacks included, since a fault injected by one action lasts until
//     another (or a rollback) removes it;
//  3. the stored affected_from_ms and affected_to_ms (rewind sim retry);
//  4. the stored start (the seed's DENEY_BASI), as 1.
//
// A run that stores its own fault window (fault_from_ms and fault_to_ms,
// as rewind sim storm writes) is shaded with it on its charts, whatever its
// side. A k6 file brings no fault events (its events are metric samples), so a
// k6 run is shaded from what its experiment stores or a journal beside it.

// fault is the fault window: in time (FromMs to ToMs on the experiment's
// t axis; NaN when the log has no times) and, when it came from a
// position, from FromPos of the treatment run on (else -1).
type fault struct {
	Label        string
	FromMs, ToMs float64
	FromPos      int64
}

// noFault is a report without a fault window: nothing is shaded.
var noFault = fault{FromMs: math.NaN(), ToMs: math.NaN(), FromPos: -1}

func (f fault) known() bool { return f.FromPos >= 0 || isFinite(f.FromMs) }

// secondsBand is the window on a t (s) axis; nil when it has no time.
func (f fault) secondsBand() []Band {
	if !isFinite(f.FromMs) || !isFinite(f.ToMs) {
		return nil
	}
	return []Band{{Label: f.Label, From: f.FromMs / 1000, To: f.ToMs / 1000}}
}

// faultWindow finds the fault window of experiment e (see above).
func faultWindow(q store.Querier, e store.Experiment, o Options, side hypothesis.Side) (fault, error) {
	if o.StartSet {
		return startFault(q, o, side, o.Start, o.say("fault window (from request %d, {start}, to the run's end)", o.Start))
	}
	f, err := actionsFault(q, o, e.Name)
	if err != nil || f.known() {
		return f, err
	}
	if span, err := analyze.AffectedSpan(e, hypothesis.Span{}); err == nil {
		return fault{Label: "fault window (stored affected_from_ms to affected_to_ms)", FromMs: span.FromMs, ToMs: span.ToMs, FromPos: -1}, nil
	}
	if start, ok := e.Number("start"); ok && start >= 0 && start == math.Trunc(start) {
		return startFault(q, o, side, int64(start), fmt.Sprintf("fault window (from request %d, the stored start, to the run's end)", int64(start)))
	}
	return noFault, nil
}

// actionsFault spans the Chaos Toolkit actions of the experiment.
func actionsFault(q store.Querier, o Options, exp string) (fault, error) {
	var from, to sql.NullFloat64
	sql := `SELECT min(t_ms) FILTER (WHERE type = 'action_start'), max(t_ms)
		FROM events WHERE experiment = ? AND type IN ('action_start', 'action_end') AND t_ms IS NOT NULL`
	if o.remote != nil { // the events' step
		sql = `SELECT action_from_ms, action_to_ms FROM _report_events WHERE ? IS NOT NULL`
	}
	err := q.QueryRow(sql, exp).Scan(&from, &to)
	if err != nil || !from.Valid {
		return noFault, err
	}
	return fault{Label: "fault window (Chaos Toolkit actions: first start to last end)", FromMs: from.Float64, ToMs: to.Float64, FromPos: -1}, nil
}

// startFault is the window from position pos of the treatment side to its
// end, with its times when the rows have them.
func startFault(q store.Querier, o Options, side hypothesis.Side, pos int64, label string) (fault, error) {
	if o.remote != nil {
		return o.remoteStartFault(q, side, pos, label)
	}
	f := fault{Label: label, FromMs: math.NaN(), ToMs: math.NaN(), FromPos: pos}
	where, args := sideWhere(side)
	var from, to sql.NullFloat64
	err := q.QueryRow(`SELECT min(t_ms) FILTER (WHERE run_pos >= ?), max(t_ms) FROM requests WHERE `+where,
		append([]any{pos}, args...)...).Scan(&from, &to)
	if err != nil {
		return f, err
	}
	if from.Valid && to.Valid {
		f.FromMs, f.ToMs = from.Float64, to.Float64
	}
	return f, nil
}

// sideWhere filters the requests of one side of a hypothesis.
func sideWhere(s hypothesis.Side) (string, []any) {
	where, args := "experiment = ? AND role = ?", []any{s.Experiment, s.Role}
	if s.Run != "" {
		where, args = "experiment = ? AND run = ?", []any{s.Experiment, s.Run}
	}
	if s.FromMs != nil {
		where, args = where+" AND t_ms >= ?", append(args, *s.FromMs)
	}
	if s.UntilMs != nil {
		where, args = where+" AND t_ms < ?", append(args, *s.UntilMs)
	}
	return where, args
}

// reportSides resolves the report's hypothesis in e. A log without the
// sides it names (e.g. no control run) gives ok false, not an error: the
// charts then draw what there is.
func reportSides(q store.Querier, e store.Experiment, o Options) (s hypothesis.Sides, ok bool, err error) {
	s, err = o.resolveSides(q, e)
	var missing *hypothesis.SidesError
	if errors.As(err, &missing) {
		return s, false, nil
	}
	return s, err == nil, err
}

// sideRuns lists the runs of a side, in the report's order.
func sideRuns(q store.Querier, o Options, s hypothesis.Side) ([]string, error) {
	if o.remote != nil {
		return remoteSideRuns(q, s)
	}
	where, args := sideWhere(s)
	return store.QueryStrings(q, `SELECT run FROM requests WHERE `+where+` GROUP BY run ORDER BY min(seq), run`, args...)
}

// runFaults reads the fault windows runs store themselves (fault_from_ms,
// fault_to_ms in the runs table's params), by run.
func runFaults(q store.Querier, exp string) (map[string]fault, error) {
	rows, err := q.Query(`SELECT run, TRY_CAST(params->>'fault_from_ms' AS DOUBLE), TRY_CAST(params->>'fault_to_ms' AS DOUBLE)
		FROM runs WHERE experiment = ? ORDER BY run`, exp)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]fault{}
	for rows.Next() {
		var run string
		var from, to sql.NullFloat64
		if err := rows.Scan(&run, &from, &to); err != nil {
			return nil, err
		}
		if from.Valid && to.Valid && from.Float64 <= to.Float64 {
			out[run] = fault{Label: "fault window (the run's stored fault_from_ms to fault_to_ms)", FromMs: from.Float64, ToMs: to.Float64, FromPos: -1}
		}
	}
	return out, rows.Err()
}
