package analyze

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// Column is one output column: the SQL name (the JSON and CSV key) and a
// unit for people ("requests", "ms", "share", "x").
type Column struct {
	Name string
	Unit string
}

// Result is the output of one analysis: rows of Go values (int64, float64,
// string, bool, []any or nil), in the SQL macro's column order.
type Result struct {
	Name    string
	Columns []Column
	Rows    [][]any
	// Notes say what a reader must know to read the rows right (a
	// resolution left out, a definition chosen); the CLI prints them on
	// stderr, so the output itself stays data. A note is a param text: it
	// names the parameters it suggests ({rate}) in the library's words, and
	// a caller says them in its own (SayNotes).
	Notes []*param.Error
}

// SayNotes are the notes with their parameters written as name says.
func (r *Result) SayNotes(name func(param string) string) []string {
	out := make([]string, len(r.Notes))
	for i, n := range r.Notes {
		out[i] = n.Say(name)
	}
	return out
}

// Col returns the index of a column, or -1.
func (r *Result) Col(name string) int {
	for i, c := range r.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Query runs q and collects its rows; units are looked up by column name.
func Query(db store.Querier, name string, units map[string]string, q string, args ...any) (*Result, error) {
	rows, err := db.Query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return collect(rows, name, units)
}

func collect(rows *sql.Rows, name string, units map[string]string) (*Result, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	res := &Result{Name: name}
	for _, c := range cols {
		res.Columns = append(res.Columns, Column{Name: c, Unit: units[c]})
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		vals, err := store.ScanAny(rows, len(cols))
		if err != nil {
			return nil, err
		}
		for i, v := range vals {
			vals[i] = normalizeTyped(v, types[i].DatabaseTypeName())
		}
		res.Rows = append(res.Rows, vals)
	}
	return res, rows.Err()
}

// normalizeTyped is normalize, with times written as RFC 3339 (UTC, as
// DuckDB's TIMESTAMP holds them): a DATE as its day, a TIME as its clock.
func normalizeTyped(v any, dbType string) any {
	t, ok := v.(time.Time)
	if !ok {
		return normalize(v)
	}
	switch dbType {
	case "DATE":
		return t.Format(time.DateOnly)
	case "TIME", "TIMETZ":
		return t.Format("15:04:05.999999")
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// normalize turns driver values into the few kinds the writers know.
func normalize(v any) any {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		return int64(x)
	case int:
		return int64(x)
	case float32:
		return float64(x)
	case *big.Int:
		if x.IsInt64() {
			return x.Int64()
		}
		return x.String()
	case []byte:
		return string(x)
	case fmt.Stringer:
		return x.String()
	case map[string]any:
		b, _ := json.Marshal(x)
		return string(b)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}
