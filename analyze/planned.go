package analyze

import (
	"fmt"
	"regexp"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// plannedCount counts the requests the plan tags in the experiment window,
// after checking that the plan is one boolean expression. stored says the
// plan came from the experiment's params rather than from --planned.
func plannedCount(db store.Querier, pred string, stored bool, e store.Experiment, start int64) (int64, error) {
	refuse := func(reason string) error {
		pe := &PlannedError{Predicate: pred, Reason: reason}
		if stored {
			pe.Experiment = e.Name
		}
		return pe
	}
	reason, err := hypothesis.CheckPlanned(db, pred)
	if err != nil {
		return 0, err
	}
	if reason != "" {
		return 0, refuse(reason)
	}
	// The plan is spliced into SQL with text after it: a line comment at
	// its end ('true --') would eat that text, so it ends a line.
	sqlPred := pred + "\n"
	var n int64
	// experiment_window numbers the rows (pos) with a sort; a plan that
	// does not name pos counts the same rows without it (and when that
	// fails, the error is the one over experiment_window, which a user
	// knows).
	count := func(from string) error {
		return db.QueryRow(`SELECT count(*) FROM `+from+`(?, ?) WHERE `+sqlPred, e.Name, start).Scan(&n)
	}
	if namesPos.MatchString(pred) || count("_experiment_rows") != nil {
		if err := count("experiment_window"); err != nil {
			return 0, fmt.Errorf("planned predicate %q: %w", pred, err)
		}
	}
	if reason, err = hypothesis.CheckPlannedType(db, sqlPred, e.Name, start); err != nil {
		return 0, fmt.Errorf("planned predicate %q: %w", pred, err)
	}
	if reason != "" {
		return 0, refuse(reason)
	}
	return n, nil
}

// namesPos finds the word pos anywhere in a plan (in a string too: then the
// count only takes the slower way).
var namesPos = regexp.MustCompile(`(?i)\bpos\b`)

// PlannedError is a blast-radius plan that is not one boolean expression
// over the request columns. The plan is pasted into a WHERE clause, so
// anything else would change what is counted: "false UNION ALL SELECT 99999"
// made the planned count 99999.
type PlannedError struct {
	Predicate  string
	Experiment string // set when the plan is the experiment's stored param
	Reason     string
}

func (e *PlannedError) Error() string { return e.Unwrap().Error() }

// Unwrap is the message as a param.Error.
func (e *PlannedError) Unwrap() error {
	if e.Experiment != "" {
		return param.Errorf("planned", "planned predicate %q (param planned stored with experiment %s; {planned} overrides it): want one boolean expression over the request columns, %s",
			e.Predicate, e.Experiment, e.Reason)
	}
	return param.Errorf("planned", "planned predicate %q ({planned}): want one boolean expression over the request columns, %s",
		e.Predicate, e.Reason)
}
