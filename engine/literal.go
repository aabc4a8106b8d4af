package engine

import (
	"math"
	"strconv"
	"strings"
)

// Spark SQL has no bind parameters in the Connect client: values go into a
// query's text through these, never by formatting them in.

// String is s as a Spark SQL string literal. Spark reads backslash escapes
// in literals (spark.sql.parser.escapedStringLiterals is off by default), so
// backslashes are doubled as well as quotes escaped.
func String(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, `'`, `\'`) + "'"
}

// Ident is name as a Spark SQL identifier in backticks, backticks doubled.
func Ident(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// Int is n as a BIGINT literal (the L suffix: an int literal past 2^31 is a
// BIGINT in Spark anyway, but a small one would be an INT).
func Int(n int64) string { return strconv.FormatInt(n, 10) + "L" }

// Double is f as a DOUBLE literal, exact: the shortest decimal that reads
// back as the same float64, with Spark's D suffix (a bare 1.5 is a DECIMAL).
// NaN and the infinities, which have no literal, are casts of their names.
func Double(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "CAST(" + String(strconv.FormatFloat(f, 'g', -1, 64)) + " AS DOUBLE)"
	}
	return strconv.FormatFloat(f, 'g', -1, 64) + "D"
}
