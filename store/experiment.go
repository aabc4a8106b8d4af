package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Experiment is a recorded experiment and the parameters stored with it.
type Experiment struct {
	Name   string
	Params map[string]any
}

// ErrNoExperiment means the database holds no experiment yet.
var ErrNoExperiment = errors.New("the database holds no experiment: ingest a log first")

// AmbiguousError lists the experiments when --experiment is needed.
// Suitable, when the analysis knows, are those that have what it needs
// (times for peaks, say), so a hint can name one that works.
type AmbiguousError struct{ Names, Suitable []string }

// Hint is the experiment a Try line should name: a suitable one, else the
// first.
func (e *AmbiguousError) Hint() string {
	if len(e.Suitable) > 0 {
		return e.Suitable[0]
	}
	return e.Names[0]
}

// WithSuitable fills Suitable of an AmbiguousError with the experiments
// for which has (a SQL condition over requests, per experiment) holds.
func WithSuitable(db Querier, err error, has string) error {
	var amb *AmbiguousError
	if !errors.As(err, &amb) {
		return err
	}
	rows, qerr := db.Query(`SELECT DISTINCT experiment FROM requests WHERE ` + has + ` ORDER BY experiment`)
	if qerr != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			amb.Suitable = append(amb.Suitable, n)
		}
	}
	return amb
}

func (e *AmbiguousError) Error() string { return e.Say(func(p string) string { return p }) }

// Say is the error with the parameter that names an experiment written as
// name says (param.Say's rule: the CLI's --experiment).
func (e *AmbiguousError) Say(name func(param string) string) string {
	return fmt.Sprintf("the database holds %d experiments (%s): name one with %s",
		len(e.Names), strings.Join(e.Names, ", "), name("experiment"))
}

// FindExperiment returns the named experiment, or the only one when name is
// empty.
func FindExperiment(db Querier, name string) (Experiment, error) {
	names, err := Experiments(db)
	if err != nil {
		return Experiment{}, err
	}
	if name == "" {
		switch len(names) {
		case 0:
			return Experiment{}, ErrNoExperiment
		case 1:
			name = names[0]
		default:
			return Experiment{}, &AmbiguousError{Names: names}
		}
	}
	var params sql.NullString
	err = db.QueryRow(`SELECT params::VARCHAR FROM experiments WHERE experiment = ?`, name).Scan(&params)
	if errors.Is(err, sql.ErrNoRows) {
		return Experiment{}, fmt.Errorf("no experiment %q in the database (have: %s)", name, strings.Join(names, ", "))
	}
	if err != nil {
		return Experiment{}, err
	}
	e := Experiment{Name: name, Params: map[string]any{}}
	if params.Valid {
		if err := json.Unmarshal([]byte(params.String), &e.Params); err != nil {
			return e, fmt.Errorf("experiment %q: stored params: %w", name, err)
		}
	}
	return e, nil
}

// Experiments lists the experiments in the database, by name.
func Experiments(db Querier) ([]string, error) {
	names, err := QueryStrings(db, `SELECT experiment FROM experiments ORDER BY experiment`)
	if err != nil {
		return nil, fmt.Errorf("list experiments: %w", err)
	}
	return names, nil
}

// QueryStrings runs a query of one text column and returns its values.
func QueryStrings(db Querier, q string, args ...any) ([]string, error) {
	rows, err := db.Query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Number returns a numeric parameter.
func (e Experiment) Number(key string) (float64, bool) {
	f, ok := e.Params[key].(float64)
	return f, ok
}

// Text returns a string parameter.
func (e Experiment) Text(key string) (string, bool) {
	s, ok := e.Params[key].(string)
	return s, ok
}
