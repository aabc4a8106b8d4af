package analyze

import (
	"fmt"
	"strconv"

	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// wholeRunsSchedule is checkedSchedule for a given rate over a database
// whose every request row has a numeric req and a start (wholeSchedule):
// each run's rows, first and last req, which the checks and the notes of
// missing reqs read, come with the windows' pass (_om_windows), not from a
// pass of their own over the requests (issue 41). The windows run first;
// the checks, then omission, as in checkedSchedule.
func wholeRunsSchedule(db store.Querier, exp string, o OmissionOptions, src omissionSrc) (*Result, *Result, error) {
	args := givenRateArgs(o)
	w, err := Query(db, "omission windows", store.Units("omission_windows"),
		`SELECT * FROM _om_windows(`+args+`, win_ms := `+sqllit.Ms(o.Window)+`, intervals := NULL)`, exp)
	if err != nil {
		return nil, nil, err
	}
	if err := src.runsOfWindows(w); err != nil {
		return nil, nil, err
	}
	if err := src.checkSchedule(exp); err != nil {
		return nil, nil, err
	}
	if err := checkExpansion(db, exp, "omission"); err != nil {
		return nil, nil, err
	}
	m, err := Query(db, "omission", store.Units("omission"), `SELECT * FROM omission(`+args+`)`, exp)
	if err != nil {
		return nil, nil, err
	}
	m.Notes = append(scheduleNotes(m, o), src.gaps...)
	return m, w, nil
}

// givenRateArgs are the schedule macros' arguments for o's rate, the
// experiment a parameter.
func givenRateArgs(o OmissionOptions) string {
	return "?, interval_num := " + strconv.FormatInt(o.Interval.Num, 10) + ", interval_den := " + strconv.FormatInt(o.Interval.Den, 10)
}

// runsOfWindows reads each run's rows, first and last req from the last
// three columns of _om_windows' result w (on every window of a run; the
// rows in run order, as readRuns reads them), as readRuns does for a whole
// schedule, and takes the three columns off w: it is then
// omission_windows'.
func (s *omissionSrc) runsOfWindows(w *Result) error {
	n := len(w.Columns) - 3
	if n < 0 || w.Columns[n].Name != "run_rows" || w.Columns[n+1].Name != "first_req" || w.Columns[n+2].Name != "last_req" {
		return fmt.Errorf("omission windows: want the columns run_rows, first_req and last_req last, got %v", w.Columns)
	}
	last := ""
	for i, r := range w.Rows {
		run, ok := r[0].(string)
		rows, ok1 := r[n].(int64)
		lo, ok2 := r[n+1].(int64)
		hi, ok3 := r[n+2].(int64)
		if !ok || !ok1 || !ok2 || !ok3 {
			return fmt.Errorf("omission windows: row %d: want a run and three whole numbers, got %v", i, r)
		}
		w.Rows[i] = r[:n]
		if i > 0 && run == last {
			continue
		}
		last = run
		s.rows, s.withReq, s.withT = s.rows+rows, s.withReq+rows, s.withT+rows
		if missing := hi - lo + 1 - rows; missing > 0 {
			s.gaps = append(s.gaps, param.Textf("run %s: %d of req %d..%d are not in the log (records lost or cut, not unsent): they count as deficit", run, missing, lo, hi))
		}
	}
	w.Columns = w.Columns[:n]
	return nil
}

// wholeSchedule tells whether every request row of the database has a
// numeric req (and no req_text) and a t_ms: then each run's rows, rows
// with a req and rows with a start are one count, and _om_runs' counts
// need no pass of their own (issue 41). Each count is of a column's
// NULLs alone, which DuckDB answers from its segments' statistics.
func wholeSchedule(db store.Querier) (bool, error) {
	var n int64
	err := db.QueryRow(`SELECT (SELECT count(*) FROM requests WHERE req IS NULL) + (SELECT count(*) FROM requests WHERE req_text IS NOT NULL)
		+ (SELECT count(*) FROM requests WHERE t_ms IS NULL)`).Scan(&n)
	return n == 0, err
}
