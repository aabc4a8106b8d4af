package analyze

import (
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// OmissionOptions steer Omission: coordinated omission read from the log
// (queries/omission.sql).
type OmissionOptions struct {
	Experiment string
	Interval   SendInterval  // the schedule's interval between sends; zero: inferred for Vegeta
	Window     time.Duration // deficit windows (default 1 s)
	Requests   bool          // per-request lags instead of the percentiles and windows
	// Back-fill for a closed loop: HdrHistogram's expected interval, or
	// ClosedLoop to derive it per run.
	Expected   time.Duration
	ClosedLoop bool
}

// SendInterval is a constant rate's interval between sends, Num/Den
// microseconds in lowest terms: exact for any rate N/DURATION.
type SendInterval struct{ Num, Den int64 }

// IsZero tells whether no rate was given.
func (s SendInterval) IsZero() bool { return s.Num == 0 }

// ParseRate reads a rate as Vegeta's -rate takes it: N (per second) or
// N/DURATION (50/1s, 3/1m).
func ParseRate(s string) (SendInterval, error) {
	n, per, found := strings.Cut(s, "/")
	freq, err := strconv.ParseInt(n, 10, 64)
	if err != nil || freq <= 0 || freq > 1e9 {
		return SendInterval{}, fmt.Errorf("rate %q: want requests per second (50) or N/DURATION (50/1s), N above 0", s)
	}
	d := time.Second
	if found {
		if d, err = hypothesis.ParseLongDuration(per); err != nil || d <= 0 {
			return SendInterval{}, fmt.Errorf("rate %q: %q is not a positive duration", s, per)
		}
	}
	r := new(big.Rat).SetFrac(big.NewInt(int64(d)), big.NewInt(freq*1000)) // ns per request / 1000
	return SendInterval{Num: r.Num().Int64(), Den: r.Denom().Int64()}, nil
}

// ErrCannotTell means the log holds no schedule: neither a sequence with
// a rate nor an intended send time.
var ErrCannotTell = errors.New("the log cannot tell")

// Omission answers for a constant-rate log (the percentiles from the
// intended send time beside the recorded ones, then the deficit per
// window), for k6's arrival-rate executors (the dropped iterations per
// window), or, asked for a closed loop, with HdrHistogram's back-fill. A
// log that cannot tell is refused with ErrCannotTell.
func Omission(db store.Querier, o OmissionOptions) (main, windows *Result, err error) {
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, nil, err
	}
	if o.Window == 0 {
		o.Window = time.Second
	}
	if o.Expected > 0 || o.ClosedLoop {
		r, err := backfill(db, e.Name, o)
		return r, nil, err
	}
	src, err := omissionSource(db, e.Name)
	if err != nil {
		return nil, nil, err
	}
	if o.Interval.IsZero() && !src.vegeta {
		if src.dropped > 0 || src.k6 {
			r, err := dropped(db, e.Name, o, src)
			return r, nil, err
		}
		return nil, nil, src.cannotTell(e.Name)
	}
	return checkedSchedule(db, e.Name, o, src)
}

// checkedSchedule reads the rows' runs (inferring the intervals when o
// gives none), refuses a log that cannot be read as a schedule, and runs
// the schedule's macros.
func checkedSchedule(db store.Querier, exp string, o OmissionOptions, src omissionSrc) (*Result, *Result, error) {
	if !o.Interval.IsZero() && !o.Requests && !src.remote {
		whole, err := wholeSchedule(db)
		if err != nil {
			return nil, nil, err
		}
		if whole {
			return wholeRunsSchedule(db, exp, o, src)
		}
	}
	if err := src.readRuns(db, exp, o.Interval.IsZero()); err != nil {
		return nil, nil, err
	}
	if err := src.checkSchedule(exp); err != nil {
		return nil, nil, err
	}
	if err := checkExpansion(db, exp, "omission"); err != nil {
		return nil, nil, err
	}
	return schedule(db, exp, o, src)
}

// omissionSrc is what the log holds for a schedule.
type omissionSrc struct {
	rows, withReq, withT, dropped int64
	vegeta, k6                    bool
	formats                       string
	// gaps names runs whose req between their first and last are not all
	// there: Vegeta numbers a request when it sends it, so a missing seq is
	// a record lost from the log (a cut file), which reads as deficit.
	gaps []*param.Error
	// intervals is each run's inferred interval, a MAP literal of run to
	// us (readRuns with infer); noInterval the runs whose cannot be.
	intervals, noInterval string
	// remote: the rows are on an engine, and _om_runs is the TEMP macro over
	// its step's rows (the in-memory requests hold none to count).
	remote bool
}

// omissionSource reads the log's formats and k6's dropped iterations.
func omissionSource(db store.Querier, exp string) (omissionSrc, error) {
	var s omissionSrc
	err := db.QueryRow(`SELECT coalesce(string_agg(DISTINCT format, ', ' ORDER BY format), ''),
			coalesce(bool_and(format = 'vegeta'), false), coalesce(bool_or(format = 'k6'), false)
		FROM files WHERE experiment = ?`, exp).Scan(&s.formats, &s.vegeta, &s.k6)
	if err != nil {
		return s, err
	}
	err = db.QueryRow(`SELECT count(*) FROM events WHERE experiment = ? AND type = 'k6_point' AND subject = 'dropped_iterations'`, exp).Scan(&s.dropped)
	return s, err
}

// readRuns reads what the rows hold for a schedule in one pass, run by
// run, and with infer each run's interval (once, for the macros that
// follow: the median gap ingest stored, or a sort of the run by req).
func (s *omissionSrc) readRuns(db store.Querier, exp string, infer bool) error {
	q := `SELECT run, rows, with_req, with_t, missing, first_req, last_req, gap_us
		FROM _om_runs(?, true, ?, true) ORDER BY run`
	args := []any{exp, infer}
	if !infer && !s.remote {
		whole, err := wholeSchedule(db)
		if err != nil {
			return err
		}
		if whole {
			q, args = `SELECT run, count(req) AS rows, count(req), count(req), max(req) - min(req) + 1 - count(req), min(req), max(req), NULL::BIGINT
				FROM requests WHERE experiment = ? GROUP BY run ORDER BY run`, []any{exp}
		}
	}
	rows, err := db.Query(q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var entries []string // run: us, of the MAP
	for rows.Next() {
		var run string
		var n, withReq, withT, missing int64
		var lo, hi, gap sql.NullInt64
		if err := rows.Scan(&run, &n, &withReq, &withT, &missing, &lo, &hi, &gap); err != nil {
			return err
		}
		s.rows, s.withReq, s.withT = s.rows+n, s.withReq+withReq, s.withT+withT
		if missing > 0 {
			s.gaps = append(s.gaps, param.Textf("run %s: %d of req %d..%d are not in the log (records lost or cut, not unsent): they count as deficit", run, missing, lo.Int64, hi.Int64))
		}
		switch {
		case !infer:
		case !gap.Valid:
			s.noInterval += ", " + run + " (no two consecutive req)"
		case gap.Int64 <= 0:
			s.noInterval += fmt.Sprintf(", %s (median gap %d us)", run, gap.Int64)
		default:
			entries = append(entries, sqllit.String(run)+": "+strconv.FormatInt(gap.Int64, 10))
		}
	}
	s.intervals = "MAP {" + strings.Join(entries, ", ") + "}"
	return rows.Err()
}

func (s omissionSrc) cannotTell(exp string) error {
	return param.Errorf("rate", "experiment %q (%s): %w whether requests went out late: it records when each request started, not when it was meant to (no Vegeta seq, no intended send time, no k6 dropped_iterations); "+
		"give {rate} N/DURATION when it was sent at a constant rate with req numbering the sends, or {closed-loop} (or {expected-interval} DURATION) for HdrHistogram's back-fill, a bound", exp, s.formats, ErrCannotTell)
}

func (s omissionSrc) checkSchedule(exp string) error {
	switch {
	case s.rows == 0:
		return fmt.Errorf("experiment %q has no requests", exp)
	case s.withReq < s.rows:
		return fmt.Errorf("experiment %q: %d of its %d rows have no numeric req, the sequence number the schedule t0 + req / rate needs: %w which request each was", exp, s.rows-s.withReq, s.rows, ErrCannotTell)
	case s.withT < s.rows:
		return fmt.Errorf("experiment %q: %d of its %d rows have no start time (t_ms or ts): %w how late they went out", exp, s.rows-s.withT, s.rows, ErrCannotTell)
	}
	return nil
}

// schedule runs omission and omission_windows (or omission_requests).
func schedule(db store.Querier, exp string, o OmissionOptions, src omissionSrc) (*Result, *Result, error) {
	var args string
	if o.Interval.IsZero() {
		if src.noInterval != "" {
			return nil, nil, param.Errorf("rate", "experiment %q: the rate cannot be inferred from the gaps between consecutive sends of run %s: give {rate} N/DURATION", exp, src.noInterval[2:])
		}
		args = "?, intervals := " + src.intervals
	} else {
		args = givenRateArgs(o)
	}
	if o.Requests {
		r, err := Query(db, "omission requests", store.Units("omission_requests"), `SELECT * FROM omission_requests(`+args+`)`, exp)
		return r, nil, err
	}
	m, err := Query(db, "omission", store.Units("omission"), `SELECT * FROM omission(`+args+`)`, exp)
	if err != nil {
		return nil, nil, err
	}
	w, err := Query(db, "omission windows", store.Units("omission_windows"), `SELECT * FROM omission_windows(`+args+`, win_ms := `+sqllit.Ms(o.Window)+`)`, exp)
	if err != nil {
		return nil, nil, err
	}
	m.Notes = append(scheduleNotes(m, o), src.gaps...)
	return m, w, nil
}

func scheduleNotes(m *Result, o OmissionOptions) []*param.Error {
	notes := []*param.Error{param.Textf("schedule: request req of a run was meant to start at t0 + req * interval, t0 the latest that puts none ahead of it: each lag is at most the true one")}
	if !o.Interval.IsZero() {
		return notes
	}
	seen := map[string]bool{}
	for _, r := range m.Rows {
		run := r[0].(string)
		if !seen[run] {
			seen[run] = true
			notes = append(notes, param.Textf("run %s: the interval between sends %s ms is inferred (the median gap between consecutive req), not recorded: give {rate} N/DURATION to state it", run, hypothesis.TrimFloat(r[m.Col("interval_ms")].(float64))))
		}
	}
	return notes
}

// dropped reads k6's dropped_iterations per window.
func dropped(db store.Querier, exp string, o OmissionOptions, src omissionSrc) (*Result, error) {
	if src.dropped == 0 {
		return nil, param.Errorf("rate", "experiment %q (k6) has no dropped_iterations points: %w whether it fell behind (only k6's arrival-rate executors drop iterations, and none were dropped or the run used another executor); give {rate} N/DURATION for a constant-rate schedule numbered by req, or {closed-loop} for HdrHistogram's back-fill, a bound", exp, ErrCannotTell)
	}
	r, err := Query(db, "omission dropped", store.Units("omission_dropped"), `SELECT * FROM omission_dropped(?, win_ms := `+sqllit.Ms(o.Window)+`)`, exp)
	if r != nil {
		r.Columns[r.Col("expected")].Unit, r.Columns[r.Col("sent")].Unit = "iterations", "iterations"
		r.Columns[r.Col("deficit")].Unit, r.Columns[r.Col("backlog")].Unit = "iterations", "iterations"
		r.Notes = []*param.Error{param.Textf("k6's arrival-rate executors start an iteration on schedule or drop it: the %d iterations dropped are the deficit; the requests sent were not delayed by the schedule, so their latencies need no correction, and the dropped ones have none (corrected percentiles cannot be told); sent counts iterations by their end", src.dropped)}
	}
	return r, err
}

// backfill runs omission_backfill.
func backfill(db store.Querier, exp string, o OmissionOptions) (*Result, error) {
	e := "NULL"
	if o.Expected > 0 {
		if o.Expected%time.Microsecond != 0 {
			return nil, param.Errorf("expected-interval", "{expected-interval} %v: want a whole number of microseconds", o.Expected)
		}
		e = strconv.FormatInt(o.Expected.Microseconds(), 10)
	}
	r, err := Query(db, "omission backfill", store.Units("omission_backfill"), `SELECT * FROM omission_backfill(?, interval_us := `+e+`)`, exp)
	if err != nil {
		return nil, err
	}
	if len(r.Rows) == 0 {
		return nil, fmt.Errorf("experiment %q has no latencies to back-fill", exp)
	}
	how := "given"
	if o.Expected == 0 {
		how = "derived per run: the median gap between consecutive starts of one client_id (of the run without client_id)"
	}
	r.Notes = []*param.Error{param.Textf("bound_ms is HdrHistogram's expected-interval back-fill (recordValueWithExpectedInterval: v, v - e, v - 2e, ... while >= e): a bound on what a schedule of one request every e would have read, not a measurement; e %s", how)}
	return r, nil
}
