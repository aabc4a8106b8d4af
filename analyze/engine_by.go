package analyze

import (
	"fmt"
	"strings"

	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// engineGroup is a --by group on an engine: each field's value computed
// on the cluster as one more key of every step (columns g0, g1, …), and
// in the in-memory database the same struct as the local group's key.
type engineGroup struct {
	g      grouping // the local grouping: the library's NAME_by is called with it
	fields []string
	spark  []string // each field's Spark SQL over requests
	types  []string // each field's DuckDB type
}

// sparkByColumns are the by fields translated to Spark SQL, with their
// DuckDB types: the columns of byColumns, and status_class as its local
// CASE. An attrs key is attrsOn's.
var sparkByColumns = map[string][2]string{
	"role": {"role", "VARCHAR"}, "status": {"status", "INTEGER"}, "outcome": {"outcome", "VARCHAR"},
	"tagged": {"tagged", "BOOLEAN"}, "attempt": {"attempt", "INTEGER"}, "retried": {"retried", "BOOLEAN"},
	"drop_reason": {"drop_reason", "VARCHAR"}, "user_id": {"user_id", "VARCHAR"},
	"batch_id": {"batch_id", "VARCHAR"}, "client_id": {"client_id", "VARCHAR"},
	"status_class": {"CASE WHEN status BETWEEN 100 AND 599 THEN concat(CAST(status div 100 AS STRING), 'xx') ELSE 'none' END", "VARCHAR"},
}

// groupOn checks the fields as groupBy does (the same refusals of an
// empty, repeated or per-run field, and of an attrs key no row of the
// experiment has, in the same order) and translates them; then each
// attrs key's values are checked (attrsKinds): one that Spark would write
// otherwise than DuckDB is refused by name.
func (r *Remote) groupOn(analysis string, db store.Querier, exp string, fields []string) (engineGroup, error) {
	eg := engineGroup{fields: fields}
	var parts, attrs []string
	seen := map[string]bool{}
	for _, f := range fields {
		if err := fieldName(fields, f, seen); err != nil {
			return eg, err
		}
		c, ok := sparkByColumns[f]
		local := byColumns[f]
		if !ok {
			var err error
			if c, err = r.attrsOn(analysis, exp, fields, f); err != nil {
				return eg, err
			}
			local = attrsSQL(f)
			attrs = append(attrs, f)
		}
		eg.spark = append(eg.spark, c[0])
		eg.types = append(eg.types, c[1])
		parts = append(parts, sqllit.String(f)+": "+local)
	}
	for _, f := range attrs {
		if err := r.attrsKinds(analysis, exp, f); err != nil {
			return eg, err
		}
	}
	if len(fields) > 0 {
		eg.g = grouping{"{" + strings.Join(parts, ", ") + "}"}
	}
	return eg, nil
}

// sel is ", expr AS g0, …" over the columns of requests.
func (eg engineGroup) sel() string {
	var b strings.Builder
	for i, x := range eg.spark {
		fmt.Fprintf(&b, ", %s AS g%d", x, i)
	}
	return b.String()
}

// keys is ", g0, g1, …".
func (eg engineGroup) keys() string {
	var b strings.Builder
	for i := range eg.spark {
		fmt.Fprintf(&b, ", g%d", i)
	}
	return b.String()
}

// keysOf is keys with the prefix p: ", p.g0, p.g1, …".
func (eg engineGroup) keysOf(p string) string {
	var b strings.Builder
	for i := range eg.spark {
		fmt.Fprintf(&b, ", %s.g%d", p, i)
	}
	return b.String()
}

// on is the join condition of the same group in a and b, NULL being a
// group like any other: " AND a.g0 <=> b.g0 …".
func (eg engineGroup) on(a, b string) string {
	var out strings.Builder
	for i := range eg.spark {
		fmt.Fprintf(&out, " AND %s.g%d <=> %s.g%d", a, i, b, i)
	}
	return out.String()
}

// cols is the keys' DuckDB column definitions, ", g0 TYPE, …".
func (eg engineGroup) cols() string {
	var b strings.Builder
	for i, t := range eg.types {
		fmt.Fprintf(&b, ", g%d %s", i, t)
	}
	return b.String()
}

// gk is the group's key in the in-memory database, as the library's
// NAME_by makes it: {'v': {'field': value, …}}, or true without a group.
func (eg engineGroup) gk() string {
	if len(eg.fields) == 0 {
		return "true"
	}
	parts := make([]string, len(eg.fields))
	for i, f := range eg.fields {
		parts[i] = fmt.Sprintf("%s: g%d", sqllit.String(f), i)
	}
	return "{'v': {" + strings.Join(parts, ", ") + "}}"
}

// vk is gk for the library's macros whose key wraps the group even
// without --by, {'v': grp} with grp true (retries_by's, amplification_by's;
// peaks' and judge's key is true alone).
func (eg engineGroup) vk() string {
	if len(eg.fields) == 0 {
		return "{'v': true}"
	}
	return eg.gk()
}
