// Package sqllit writes Go values as DuckDB SQL literals, for the few
// arguments the library splices into a query's text (a list of structs,
// a duration a macro takes as ms) rather than binds as parameters.
package sqllit

import (
	"strconv"
	"strings"
	"time"
)

// String is s as a SQL string literal, quotes doubled.
func String(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Ms is d in milliseconds as a SQL number, exact: the shortest decimal
// that reads back as the same float64.
func Ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64)
}

// MsOrNull is Ms(d), or NULL when d is not above 0 (not given).
func MsOrNull(d time.Duration) string {
	if d <= 0 {
		return "NULL"
	}
	return Ms(d)
}
