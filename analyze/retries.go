package analyze

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// RetriesOptions steer Retries.
type RetriesOptions struct {
	Experiment string
	Affected   hypothesis.Span // operations starting here count for the success share; zero: stored
	By         []string        // fields whose values split each run into groups (docs/by.md)
}

// ErrNoAffected means neither the options nor the experiment's stored
// parameters give the affected interval.
var ErrNoAffected = param.Errorf("affected", "give {affected} FROM..TO, e.g. 8.5s..15s")

// Retries compares retry strategies, one row per run: attempts sent, first
// attempts, retries, retries the budget refused, the success share of the
// operations that started in the affected interval, and operation latency
// percentiles.
func Retries(db store.Querier, o RetriesOptions) (*Result, error) {
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, err
	}
	if err := checkRetriesSpan(db, e.Name); err != nil {
		return nil, err
	}
	g, err := groupBy(db, e.Name, o.By)
	if err != nil {
		return nil, err
	}
	span, note, err := retriesSpan(e, o, func() (hypothesis.Span, *param.Error, error) { return wholeRun(db, e.Name) })
	if err != nil {
		return nil, err
	}
	return retriesQuery(db, e, g, span, note, note != nil)
}

// retriesSpan is the affected interval: the option, else the stored one,
// else the whole run (whole says it, with its note).
func retriesSpan(e store.Experiment, o RetriesOptions, whole func() (hypothesis.Span, *param.Error, error)) (hypothesis.Span, *param.Error, error) {
	span, err := AffectedSpan(e, o.Affected)
	if errors.Is(err, ErrNoAffected) {
		return whole()
	}
	return span, nil, err
}

// retriesQuery runs the library's retries over span; whole (span is
// wholeRun's, holding every start of the experiment) passes the bounds as
// NULL literals, which the macro reads as the whole run without comparing
// each row's start with them (the same counts: issue 41).
func retriesQuery(db store.Querier, e store.Experiment, g grouping, span hypothesis.Span, note *param.Error, whole bool) (*Result, error) {
	bounds, args := "?, ?", []any{e.Name, span.FromMs, span.ToMs}
	if whole {
		bounds, args = "NULL, NULL", args[:1]
	}
	r, err := Query(db, "retries", store.Units("retries"), `SELECT `+g.sel("*")+` FROM `+g.call("retries")+`, `+bounds+`)`, args...)
	if r != nil && note != nil {
		r.Notes = append(r.Notes, note)
	}
	return r, err
}

// wholeRun is the affected interval when none is given or stored: every
// operation of the experiment counts, and the note says so.
// When exp is the database's only experiment, the whole column's min and
// max are its own, and DuckDB takes them from the table's statistics
// without a scan (a tenth of a second at 10 M rows); any interval holding
// every time of exp gives the same counts.
func wholeRun(db store.Querier, exp string) (hypothesis.Span, *param.Error, error) {
	var only bool
	if err := db.QueryRow(`SELECT count(*) = 1 AND bool_and(experiment = ?) FROM experiments`, exp).Scan(&only); err != nil {
		return hypothesis.Span{}, nil, err
	}
	q, args := `SELECT min(t_ms), max(t_ms) FROM requests WHERE experiment = ?`, []any{exp}
	if only {
		q, args = `SELECT min(t_ms), max(t_ms) FROM requests`, nil
	}
	return wholeRunOf(db, exp, q, args...)
}

// wholeRunOf is wholeRun with the experiment's first and last t_ms read by
// q.
func wholeRunOf(db store.Querier, exp, q string, args ...any) (hypothesis.Span, *param.Error, error) {
	var from, to sql.NullFloat64
	if err := db.QueryRow(q, args...).Scan(&from, &to); err != nil {
		return hypothesis.Span{}, nil, err
	}
	if !from.Valid {
		return hypothesis.Span{}, nil, fmt.Errorf("experiment %q has no times (t_ms or ts) and no affected interval: %w", exp, ErrNoAffected)
	}
	// The interval is half-open; one ms past the last start takes it in.
	span := hypothesis.Span{FromMs: from.Float64, ToMs: to.Float64 + 1}
	return span, param.Textf("no affected interval given or stored: the whole run (%s..%s) counts as affected; give {affected} FROM..TO to narrow it",
		hypothesis.FormatMs(span.FromMs), hypothesis.FormatMs(to.Float64)), nil
}

// AffectedSpan picks the interval: the flag, else the experiment's stored
// affected_from_ms and affected_to_ms (what rewind sim retry writes).
func AffectedSpan(e store.Experiment, flag hypothesis.Span) (hypothesis.Span, error) {
	if !flag.IsZero() {
		return flag, nil
	}
	from, okFrom := e.Number("affected_from_ms")
	to, okTo := e.Number("affected_to_ms")
	if !okFrom || !okTo {
		return hypothesis.Span{}, fmt.Errorf("experiment %q stores no affected interval (affected_from_ms, affected_to_ms): %w", e.Name, ErrNoAffected)
	}
	if to <= from {
		return hypothesis.Span{}, fmt.Errorf("experiment %q: stored affected interval %v..%v ms is empty", e.Name, from, to)
	}
	return hypothesis.Span{FromMs: from, ToMs: to}, nil
}
