package report

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/analyze"
)

// sigDigits is how many significant digits a non-integral float shows. Six
// keep latencies and shares readable and hide binary noise such as
// 0.30000000000000004, so the same query prints the same text everywhere.
const sigDigits = 6

// Null is how a NULL cell shows unless a Document says otherwise
// (Document.Null); the notebook keeps it, as SQL spells it.
const Null = "NULL"

// FormatValue formats one cell the same way for HTML, text and markdown.
func FormatValue(v Value) string {
	switch x := v.(type) {
	case nil:
		return Null
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return FormatFloat(x)
	case float32:
		return FormatFloat(float64(x))
	case time.Time:
		// Fixed zone and layout: the same instant prints the same on any machine.
		return x.UTC().Format("2006-01-02 15:04:05.999999999Z")
	case []byte:
		return `\x` + hex.EncodeToString(x)
	case *big.Int:
		return x.String()
	}
	if s, ok := formatInteger(v); ok {
		return s
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprint(v)
}

// formatInteger formats every integer kind; database/sql drivers hand out
// several (DuckDB: int8 to int64, uint8 to uint64).
func formatInteger(v Value) (string, bool) {
	switch x := v.(type) {
	case int:
		return strconv.FormatInt(int64(x), 10), true
	case int8:
		return strconv.FormatInt(int64(x), 10), true
	case int16:
		return strconv.FormatInt(int64(x), 10), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint:
		return strconv.FormatUint(uint64(x), 10), true
	case uint8:
		return strconv.FormatUint(uint64(x), 10), true
	case uint16:
		return strconv.FormatUint(uint64(x), 10), true
	case uint32:
		return strconv.FormatUint(uint64(x), 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	}
	return "", false
}

// FormatFloat formats f with at most six significant digits after the
// integer part is written out in full (1234567.8 shows as 1234568, never in
// exponent form), and trailing zeros dropped. Integral values show without a
// decimal point.
func FormatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case f == 0:
		return "0" // also for -0
	}
	a := math.Abs(f)
	if a >= 1e21 || a < 1e-9 {
		return strconv.FormatFloat(f, 'g', sigDigits, 64)
	}
	decimals := sigDigits - int(math.Floor(math.Log10(a))) - 1
	decimals = max(decimals, 0)
	s := strconv.FormatFloat(f, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// IsNumeric reports whether v is a number, so that it is right-aligned.
func IsNumeric(v Value) bool {
	switch v.(type) {
	case float32, float64, *big.Int:
		return true
	case interface{ Float64() float64 }: // DuckDB's Decimal
		return true
	}
	_, ok := formatInteger(v)
	return ok
}

// numericColumns reports, per column, whether no non-NULL cell is text:
// those columns, headers included, are right-aligned. A column of NULLs
// only counts as numeric (a column of "-" reads best right-aligned, under
// the numbers beside it).
func numericColumns(t Table) []bool {
	out := make([]bool, len(t.Columns))
	for c := range t.Columns {
		out[c] = true
		for _, row := range t.Rows {
			if c < len(row) && row[c] != nil && !IsNumeric(row[c]) {
				out[c] = false
				break
			}
		}
	}
	return out
}

// rightAligned reports whether a cell is right-aligned: every number is,
// even in a column that also holds text (a key-value table); text is not;
// a NULL follows its column.
func rightAligned(row []Value, c int, numCol bool) bool {
	if c >= len(row) || row[c] == nil {
		return numCol
	}
	return IsNumeric(row[c])
}

// header is a column heading with its unit, e.g. "p99 (ms)", but "p99_ms":
// the rule of analyze's tables (analyze.Header).
func (c Column) header() string { return analyze.Header(c.Name, c.headUnit()) }

// shownUnit is the unit a heading shows: none when the name states it.
func (c Column) shownUnit() string {
	if u := c.headUnit(); !analyze.NameStatesUnit(c.Name, u) {
		return u
	}
	return ""
}

// headUnit is the unit a heading may name: none for the units the cells
// show themselves (a share as 96.00 %, a ratio as 4.00×).
func (c Column) headUnit() string {
	if c.Unit == "share" || c.Unit == "x" {
		return ""
	}
	return c.Unit
}

// cell returns row[c] formatted, or null when it is NULL or the row is short.
func cell(row []Value, c int, null string) string {
	if c >= len(row) || row[c] == nil {
		return null
	}
	return FormatValue(row[c])
}

// nullText is how a document shows NULL.
func nullText(d Document) string {
	if d.Null == "" {
		return Null
	}
	return d.Null
}
