package analyze

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rewind-dev/rewind/internal/jsfmt"
	"github.com/rewind-dev/rewind/internal/textsafe"
)

// Formats accepted by Write.
var Formats = []string{"table", "json", "csv"}

// Write prints r as an aligned table (units in the header; control
// characters escaped as \xNN, see report.Clean), a JSON array of
// objects keyed by column name (null for no value), or CSV with a header.
func Write(w io.Writer, r *Result, format string) error {
	rw, err := NewRowWriter(w, format, r.Columns)
	if err != nil {
		return err
	}
	for _, row := range r.Rows {
		if err := rw.Row(row); err != nil {
			return err
		}
	}
	return rw.Close()
}

// RowWriter writes rows one at a time in one of Formats, so that every
// command that prints rows prints them alike. JSON and CSV rows are
// written as they come, each in one write (a replay or a watch shows every
// window as it closes; the JSON array's "]" comes with Close); a table is
// written at Close, its columns as wide as their widest cell.
type RowWriter struct {
	w      io.Writer
	format string
	table  *Result
	csv    *csv.Writer
	rows   int
	keys   [][]byte // JSON: each column's key, `"name": `
	line   []byte   // JSON: the row being written
}

// NewRowWriter returns a RowWriter of cols in format (table, json or csv).
func NewRowWriter(w io.Writer, format string, cols []Column) (*RowWriter, error) {
	// table keeps the columns (the JSON keys) and, for a table, the rows.
	rw := &RowWriter{w: w, format: format, table: &Result{Columns: cols}}
	switch format {
	case "", "table":
	case "json":
		keys, err := jsonKeys(cols)
		if err != nil {
			return nil, err
		}
		rw.keys = keys
	case "csv":
		rw.csv = csv.NewWriter(w)
		head := make([]string, len(cols))
		for i, c := range cols {
			head[i] = c.Name
		}
		if err := rw.csv.Write(head); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown format %q (want table, json or csv)", format)
	}
	return rw, nil
}

// Row writes one row, its values in the columns' order.
func (rw *RowWriter) Row(row []any) error {
	defer func() { rw.rows++ }()
	switch rw.format {
	case "json":
		return rw.jsonRow(row)
	case "csv":
		rec := make([]string, len(row))
		for i, v := range row {
			rec[i] = plain(v)
		}
		if err := rw.csv.Write(rec); err != nil {
			return err
		}
		rw.csv.Flush()
		return rw.csv.Error()
	}
	rw.table.Rows = append(rw.table.Rows, row)
	return nil
}

// Close ends the output: the JSON array's bracket, or the whole table.
func (rw *RowWriter) Close() error {
	switch rw.format {
	case "json":
		end := "\n]\n"
		if rw.rows == 0 {
			end = "[]\n"
		}
		_, err := io.WriteString(rw.w, end)
		return err
	case "csv":
		rw.csv.Flush()
		return rw.csv.Error()
	}
	return writeTable(rw.w, rw.table)
}

func (rw *RowWriter) jsonRow(row []any) error {
	b := rw.line[:0]
	if rw.rows == 0 {
		b = append(b, "[\n  {"...)
	} else {
		b = append(b, ",\n  {"...)
	}
	for j, k := range rw.keys {
		if j > 0 {
			b = append(b, ", "...)
		}
		b = append(b, k...)
		var err error
		if b, err = appendJSON(b, jsonValue(row[j])); err != nil {
			return err
		}
	}
	b = append(b, '}')
	rw.line = b
	_, err := rw.w.Write(b)
	return err
}

func jsonValue(v any) any {
	if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return nil
	}
	return v
}

// plain formats a value for CSV: full precision, empty for null.
func plain(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}

// Human formats a value for the table: shares as percentages, ratios with ×.
// Measured is the unit of a column whose unit varies by row (a threshold's
// value: ms, a share or a count): a table rounds it to 6 decimals for a
// reader (238.1747, not 238.17470000000003); JSON and CSV keep every digit.
const Measured = "measured"

func Human(v any, unit string) string {
	switch x := v.(type) {
	case nil:
		return "-"
	case float64:
		// Two decimals rounded as the seeds' JavaScript toFixed rounds them.
		switch unit {
		case "share":
			return jsfmt.Fixed(100*x, 2) + " %"
		case "x":
			return jsfmt.Fixed(x, 2) + "×"
		case "":
			return strconv.FormatFloat(x, 'g', -1, 64) // no unit, e.g. ad-hoc SQL: every digit
		case Measured:
			return strconv.FormatFloat(math.Round(x*1e6)/1e6, 'f', -1, 64)
		}
		return jsfmt.Fixed(x, 2)
	case []any:
		if len(x) == 0 {
			return "-"
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Human(e, "")
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(v)
}

func writeTable(w io.Writer, r *Result) error {
	cells := make([][]string, 0, len(r.Rows)+1)
	head := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		unit := c.Unit
		if unit == "share" || unit == "x" || unit == Measured {
			unit = "" // the cell carries it (96.00 %, 4.00×), or it varies by row
		}
		head[i] = textsafe.Clean(Header(c.Name, unit))
	}
	cells = append(cells, head)
	for _, row := range r.Rows {
		line := make([]string, len(row))
		for i, v := range row {
			line[i] = textsafe.Clean(Human(v, r.Columns[i].Unit))
		}
		cells = append(cells, line)
	}
	numeric := numericColumns(r)
	width := make([]int, len(head))
	for _, line := range cells {
		for i, s := range line {
			width[i] = max(width[i], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	for _, line := range cells {
		var l strings.Builder
		for i, s := range line {
			if i > 0 {
				l.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(s))
			if numeric[i] {
				l.WriteString(pad + s)
			} else {
				l.WriteString(s + pad)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// numericColumns tells which columns hold numbers only (nulls aside): those
// are right-aligned, text is left-aligned, whatever the column's place.
func numericColumns(r *Result) []bool {
	out := make([]bool, len(r.Columns))
	for i := range r.Columns {
		out[i] = true
		for _, row := range r.Rows {
			switch row[i].(type) {
			case nil, int, int32, int64, uint64, float64, []any:
			default:
				out[i] = false
			}
		}
	}
	return out
}
