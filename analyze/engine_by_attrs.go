package analyze

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/engine"
)

// A --by attrs key on Spark. Locally its value is attrs ->> 'key' (by.go):
// a JSON string unescaped, null or a missing key NULL, anything else the
// JSON text yyjson writes of what it read (an integer's digits, past 64
// bits too; a float as the shortest text that reads back, 1.0, 1e-7; an
// object or array with its members so written). On Spark it is
// get_json_object(attrs, '$[''key'']'), which is the same text for a
// string, an integer, true, false, null and a missing key, but writes a
// float as Java does (1.0E-7 for 1e-7, though 1.5 alike), an object or
// array through Jackson, and a number past the double range as "Infinity"
// (DuckDB keeps its text, 1e400). So before the steps, a check step brings
// back the distinct values of the kinds that may differ (attrsKinds), and
// each is compared with DuckDB's text of the same value here: one that
// differs is refused by name, never grouped under another text.

// attrsOn is the attrs key f's Spark SQL and DuckDB type, after the
// checks fieldSQL makes locally: a key no row of the experiment has is
// the same FieldError (its known fields read on the cluster). A key that
// Spark's JSON path cannot name (with ', \ or *; DuckDB reads * as a
// wildcard) is refused by name.
func (r *Remote) attrsOn(analysis, exp string, fields []string, f string) ([2]string, error) {
	key := strings.TrimPrefix(f, attrsPrefix)
	if strings.ContainsAny(key, `'\*`) {
		return [2]string{}, r.NotOnEngine(fmt.Sprintf("%s by %q", analysis, f), `an attrs key with ', \ or * has no JSON path on Spark`)
	}
	expr := attrsSpark(key, false)
	t, err := r.run("_remote_attrs_key", `SELECT 1 AS one FROM requests WHERE experiment = `+engine.String(exp)+` AND `+expr+` IS NOT NULL LIMIT 1`)
	if err != nil {
		return [2]string{}, err
	}
	found := t != nil && t.NumRows() > 0
	if t != nil {
		t.Release()
	}
	if found {
		return [2]string{expr, "VARCHAR"}, nil
	}
	known, err := r.knownFields(exp)
	if err != nil {
		return [2]string{}, err
	}
	return [2]string{}, &FieldError{Fields: fields, Field: f, Exp: exp, Known: known}
}

// attrsSpark is the attrs key's value on Spark: get_json_object's text
// (a string unquoted), or with quoted its JSON text (a string quoted, as
// a JSON path with a wildcard writes it: the kind can be told).
func attrsSpark(key string, quoted bool) string {
	if quoted {
		return `get_json_object(concat('[', attrs, ']'), ` + engine.String(`$[*]['`+key+`']`) + `)`
	}
	return `get_json_object(attrs, ` + engine.String(`$['`+key+`']`) + `)`
}

// knownFields is knownFields over the experiment's rows on the cluster.
func (r *Remote) knownFields(exp string) ([]string, error) {
	if err := r.reduce("_remote_attrs_keys", "k VARCHAR", `
SELECT DISTINCT k FROM (SELECT explode(json_object_keys(attrs)) AS k FROM requests
                        WHERE experiment = `+engine.String(exp)+` AND attrs IS NOT NULL)`); err != nil {
		return nil, err
	}
	rows, err := r.db.QueryContext(r.ctx, `SELECT k FROM _remote_attrs_keys ORDER BY k`)
	if err != nil {
		return nil, err
	}
	return fieldsOf(rows)
}

// attrsKinds is the check step of the attrs key f: the distinct values
// that are not a string, an integer, true or false (get_json_object writes
// those as DuckDB does; null and a missing key are NULL on both), with
// their JSON text (t) and Spark's text (p), and, a number past the double
// range (Spark reads "Infinity": p is t, quoted). One row per distinct
// float, object or array comes back. Each is refused where DuckDB's text
// of t (the same value: a float Spark writes reads back as the same
// double) is not p, or where an object or array holds "Infinity" (it may
// be such a number, which DuckDB keeps as written).
func (r *Remote) attrsKinds(analysis, exp, f string) error {
	key := strings.TrimPrefix(f, attrsPrefix)
	if err := r.reduce("_remote_attrs_kinds", "t VARCHAR, p VARCHAR", `
SELECT DISTINCT t, p FROM (SELECT `+attrsSpark(key, true)+` AS t, `+attrsSpark(key, false)+` AS p FROM requests
                           WHERE experiment = `+engine.String(exp)+`)
WHERE t IS NOT NULL AND NOT (t rlike '^-?[0-9]+$' OR t IN ('true', 'false') OR (t LIKE '"%' AND p <> t))`); err != nil {
		return err
	}
	var kind, p string
	var d sql.NullString
	err := r.db.QueryRowContext(r.ctx, `
SELECT coalesce(json_type(TRY_CAST(t AS JSON)), 'JSON'), p, json_extract_string(TRY_CAST(t AS JSON), '$') AS d FROM _remote_attrs_kinds
WHERE d IS DISTINCT FROM p OR (t[1] IN ('[', '{') AND (t LIKE '%"Infinity"%' OR t LIKE '%"-Infinity"%'))
ORDER BY t LIMIT 1`).Scan(&kind, &p, &d)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	what := fmt.Sprintf("attrs %q has the %s %s, which Spark writes as %s", key, kindName(kind), d.String, p)
	if slices.Contains([]string{`"Infinity"`, `"-Infinity"`}, p) {
		what = fmt.Sprintf("attrs %q has a number past the double range, which Spark reads as %s", key, p)
	} else if d.String == p {
		what = fmt.Sprintf("attrs %q has the %s %s, which may hold a number past the double range (Spark reads it as \"Infinity\")", key, kindName(kind), p)
	}
	return r.NotOnEngine(fmt.Sprintf("%s by %q", analysis, f), what+"; a group's value must be the same text on both engines")
}

// kindName is a JSON type as json_type names it, in words.
func kindName(t string) string {
	switch t {
	case "OBJECT":
		return "object"
	case "ARRAY":
		return "array"
	case "VARCHAR":
		return "string"
	}
	return "number"
}
