package analyze

import (
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// A --by grouping splits each run's rows by the values of some fields, and
// an analysis that makes per-run rows gives them per run and group: its
// NAME_by macro (queries/) takes the group as an expression over the
// columns of requests and reads each group as a log of its own, so a
// group's numbers are those of the analysis over the log filtered to it.
// This file turns the fields into that expression and the query around the
// macro; docs/by.md is the user's side.

// byColumns are the canonical columns a group may be named by, with their
// SQL. run and experiment are left out: every row of an analysis is per
// run already, and an analysis reads one experiment. Per-row values (seq,
// req, t_ms, latency_ms, count, line) would make a group per row.
var byColumns = map[string]string{
	"role": "role", "status": "status", "outcome": "outcome", "tagged": "tagged",
	"attempt": "attempt", "retried": "retried", "drop_reason": "drop_reason",
	"user_id": "user_id", "batch_id": "batch_id", "client_id": "client_id",
	// status_class is the status's hundred: 2xx, 4xx, 5xx; none without a
	// status or with one outside 100-599 (a client-side error)
	"status_class": "CASE WHEN status BETWEEN 100 AND 599 THEN (status // 100)::VARCHAR || 'xx' ELSE 'none' END",
}

// attrsPrefix names an attrs key where a column has the same name.
const attrsPrefix = "attrs."

// FieldError is a by field the experiment's rows do not have: Known
// lists what they have (the columns, then the attrs keys), for a
// suggestion; without Exp, Known[0] says what is wrong (a param format).
type FieldError struct {
	Fields []string // every field asked for, as given
	Field  string   // the one not found
	Exp    string
	Known  []string
}

func (e *FieldError) Error() string { return e.Unwrap().Error() }

// Unwrap is the message as a param.Error.
func (e *FieldError) Unwrap() error {
	if e.Exp == "" {
		return param.Errorf("by", "{by} %q: "+e.Known[0], e.Field)
	}
	return param.Errorf("by", "{by} %q: experiment %q has no column or attrs key of that name (fields: %s)",
		e.Field, e.Exp, strings.Join(e.Known, ", "))
}

// grouping is the group of a query: the SQL struct of the fields' values,
// or "" without --by.
type grouping struct{ key string }

// groupBy checks the fields against the experiment and builds the group:
// {'method': (attrs ->> 'method'), 'status_class': CASE ... END}. A field is
// a column of byColumns, else an attrs key; attrs.NAME is always the key.
func groupBy(db store.Querier, exp string, fields []string) (grouping, error) {
	if len(fields) == 0 {
		return grouping{}, nil
	}
	var parts []string
	seen := map[string]bool{}
	for _, f := range fields {
		if err := fieldName(fields, f, seen); err != nil {
			return grouping{}, err
		}
		sqlExpr, err := fieldSQL(db, exp, fields, f)
		if err != nil {
			return grouping{}, err
		}
		parts = append(parts, sqllit.String(f)+": "+sqlExpr)
	}
	return grouping{"{" + strings.Join(parts, ", ") + "}"}, nil
}

// fieldName refuses an empty, repeated or per-run field, and a key that
// DuckDB would read as a JSON path.
func fieldName(fields []string, f string, seen map[string]bool) error {
	bad := func(why string) error { return &FieldError{Fields: fields, Field: f, Known: []string{why}} }
	key := strings.TrimPrefix(f, attrsPrefix)
	switch {
	case f == "" || key == "":
		return bad("an empty field (give names separated by commas: {by} method,status_class)")
	case seen[f]:
		return bad("given twice")
	case f == "run" || f == "experiment":
		return bad("every row is per " + f + " already") // f is run or experiment: no verb
	case strings.HasPrefix(key, "$") || strings.HasPrefix(key, "/"):
		return bad("an attrs key starting with $ or / is read as a JSON path; not supported")
	}
	seen[f] = true
	return nil
}

// fieldSQL is a field's value: a column's SQL, or an attrs key's string
// value when some row of the experiment has it.
func fieldSQL(db store.Querier, exp string, fields []string, f string) (string, error) {
	if c, ok := byColumns[f]; ok {
		return c, nil
	}
	expr := attrsSQL(f)
	var found bool
	q := `SELECT EXISTS (SELECT 1 FROM requests WHERE experiment = ? AND ` + expr + ` IS NOT NULL)`
	if err := db.QueryRow(q, exp).Scan(&found); err != nil {
		return "", err
	}
	if found {
		return expr, nil
	}
	known, err := knownFields(db, exp)
	if err != nil {
		return "", err
	}
	return "", &FieldError{Fields: fields, Field: f, Exp: exp, Known: known}
}

// attrsSQL is the field f's value as an attrs key: its JSON value as text
// (a string unquoted, anything else as JSON), NULL when absent or null.
func attrsSQL(f string) string {
	return "(attrs ->> " + sqllit.String(strings.TrimPrefix(f, attrsPrefix)) + ")"
}

// knownFields are the columns, then the experiment's attrs keys (a pass
// over its rows, on the error path only).
func knownFields(db store.Querier, exp string) ([]string, error) {
	rows, err := db.Query(`SELECT DISTINCT unnest(json_keys(attrs)) AS k FROM requests
		WHERE experiment = ? AND attrs IS NOT NULL ORDER BY k`, exp)
	if err != nil {
		return nil, err
	}
	return fieldsOf(rows)
}

// fieldsOf is the columns, then the attrs keys that rows (one string
// column, in order) hold; it closes rows.
func fieldsOf(rows *sql.Rows) ([]string, error) {
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return withColumns(keys), rows.Err()
}

// withColumns is the by columns, sorted, then the attrs keys (sorted),
// each named attrs.NAME where a column has its name.
func withColumns(keys []string) []string {
	var out []string
	for c := range byColumns {
		out = append(out, c)
	}
	sort.Strings(out)
	for _, k := range keys {
		if _, ok := byColumns[k]; ok {
			k = attrsPrefix + k
		}
		out = append(out, k)
	}
	return out
}

// call opens the macro's call up to its experiment, a parameter: name(?
// without a group, name_by(?, group with one.
func (g grouping) call(name string) string {
	if g.key == "" {
		return name + "(?"
	}
	return name + "_by(?, " + g.key
}

// sel puts the group's fields, one column each, before cols ("*" for all
// of the analysis's columns).
func (g grouping) sel(cols string) string {
	if g.key == "" {
		return cols
	}
	if cols == "*" {
		cols = "* EXCLUDE (grp)"
	}
	return "unnest(grp), " + cols
}

// groupText names a group in a note: method=GET, status=-, its fields'
// values as the table prints them (NULL as -).
func groupText(cols []Column, vals []any) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		v := "-"
		if vals[i] != nil {
			v = fmt.Sprint(vals[i])
		}
		parts[i] = c.Name + "=" + v
	}
	return strings.Join(parts, ", ")
}
