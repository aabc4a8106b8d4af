package notebook

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/report"
)

// chart turns a chart cell's result into a report.Chart. X may be numeric,
// a timestamp (shown as Unix milliseconds) or text (categories, in row
// order); Y columns must be numeric, and NULL leaves a gap. Axes are labelled
// in the units `rewind analyze` prints (see unitOf): a share is drawn as a
// percentage, a *_ms column is labelled ms.
func (nb *Notebook) chart(c *Cell) (report.Chart, error) {
	ch := report.Chart{Title: c.Name, Kind: c.Chart, XLabel: axisLabel([]string{c.X}), YLabel: axisLabel(c.Y)}
	xi, err := column(c.Result, c.X)
	if err != nil {
		return ch, err
	}
	xs, labels, err := xValues(c.Result, xi)
	if err != nil {
		return ch, fmt.Errorf("chart: x=%s: %w", c.X, err)
	}
	if labels == nil {
		xs = inUnit(xs, c.X)
	}
	ch.XLabels = labels
	for _, y := range c.Y {
		yi, err := column(c.Result, y)
		if err != nil {
			return ch, err
		}
		ys, err := yValues(c.Result, yi)
		if err != nil {
			return ch, fmt.Errorf("chart: y=%s: %w", y, err)
		}
		ch.Series = append(ch.Series, report.Series{Name: y, X: xs, Y: inUnit(ys, y)})
	}
	return ch, nil
}

// shareColumns are the SQL library's share columns (0-1) whose names do
// not end in _share.
var shareColumns = map[string]bool{"margin": true, "baseline": true, "affected_success": true, "threshold": true}

// unitOf infers a column's unit from its name, as the CLI's unit tables
// name them: "share" for ok_share, margin, baseline, … (0-1), "ms" for
// t_ms, latency_ms, p95_ms, …, "×" for multiplier and x_* ratios.
func unitOf(col string) string {
	name := strings.ToLower(col)
	switch {
	case name == "share" || strings.HasSuffix(name, "_share") || shareColumns[name]:
		return "share"
	case strings.HasSuffix(name, "_ms"):
		return "ms"
	case name == "multiplier" || strings.HasPrefix(name, "x_"):
		return "×"
	}
	return ""
}

// inUnit shows a share as a percentage; other values stay as they are.
func inUnit(vs []float64, col string) []float64 {
	if unitOf(col) != "share" {
		return vs
	}
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = 100 * v
	}
	return out
}

// axisLabel names an axis for people: each column with underscores as
// spaces and an _ms suffix dropped, and the unit, once when the columns
// share it: t_ms is "t (ms)", ok_share "ok share (%)", ok,errors "ok,
// errors", ok_share,errors "ok share (%), errors".
func axisLabel(cols []string) string {
	names := make([]string, len(cols))
	shared := unitOf(cols[0])
	for i, c := range cols {
		if unitOf(c) == "ms" {
			c = c[:len(c)-len("_ms")]
		}
		names[i] = strings.ReplaceAll(c, "_", " ")
		if unitOf(cols[i]) != shared {
			shared = "mixed"
		}
	}
	if shared != "mixed" {
		return withUnit(strings.Join(names, ", "), shared)
	}
	for i, c := range cols {
		names[i] = withUnit(names[i], unitOf(c))
	}
	return strings.Join(names, ", ")
}

func withUnit(label, unit string) string {
	switch unit {
	case "":
		return label
	case "share":
		unit = "%"
	}
	return label + " (" + unit + ")"
}

func column(r *Result, name string) (int, error) {
	if i := slices.Index(r.Columns, name); i >= 0 {
		return i, nil
	}
	return 0, fmt.Errorf("chart: no column %q in the result (columns: %s)", name, strings.Join(r.Columns, ", "))
}

// xValues reads the X column: numbers as they are, or, when every value is
// text, positions 0, 1, 2, ... named by the text.
func xValues(r *Result, col int) ([]float64, []string, error) {
	if len(r.Rows) > 0 {
		if _, ok := r.Rows[0][col].(string); ok {
			return categories(r, col)
		}
	}
	xs, err := yValues(r, col)
	return xs, nil, err
}

func categories(r *Result, col int) ([]float64, []string, error) {
	xs := make([]float64, len(r.Rows))
	labels := make([]string, len(r.Rows))
	for i, row := range r.Rows {
		s, ok := row[col].(string)
		if !ok {
			return nil, nil, fmt.Errorf("row %d: %v is not text like the rows before it", i+1, row[col])
		}
		xs[i], labels[i] = float64(i), s
	}
	return xs, labels, nil
}

func yValues(r *Result, col int) ([]float64, error) {
	out := make([]float64, len(r.Rows))
	for i, row := range r.Rows {
		f, ok := toFloat(row[col])
		if !ok {
			return nil, fmt.Errorf("row %d: %q is not a number", i+1, report.FormatValue(row[col]))
		}
		out[i] = f
	}
	return out, nil
}

// toFloat converts the numeric types DuckDB hands to database/sql.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case nil:
		return math.NaN(), true
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case int16:
		return float64(x), true
	case int8:
		return float64(x), true
	case int:
		return float64(x), true
	case uint64:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint8:
		return float64(x), true
	case bool:
		return map[bool]float64{false: 0, true: 1}[x], true
	case time.Time:
		return float64(x.UnixMilli()), true
	case *big.Int: // HUGEINT
		f, _ := new(big.Float).SetInt(x).Float64()
		return f, true
	case interface{ Float64() float64 }: // DuckDB's Decimal
		return x.Float64(), true
	}
	return 0, false
}
