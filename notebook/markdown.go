package notebook

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/internal/textsafe"
	"github.com/rewind-dev/rewind/report"
)

// WriteMarkdown writes the notebook as it was written, with each cell's
// result as a markdown table right after the cell. A chart cell gets a table
// of its X and Y columns, so the numbers behind the chart stay readable.
func (nb *Notebook) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for i, p := range nb.parts {
		if p.cell == nil {
			bw.WriteString(p.prose)
			continue
		}
		c := p.cell
		bw.WriteString(c.Fence + c.SQL + c.Close)
		if !strings.HasSuffix(c.Close, "\n") {
			bw.WriteString("\n")
		}
		if table := nb.markdownTable(c); table != "" {
			bw.WriteString("\n" + table)
			if needsBlank(nb.parts, i) {
				bw.WriteString("\n") // a line right after a table would join it
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", nb.Name, err)
	}
	return nil
}

// needsBlank reports whether what follows part i starts with anything but a
// blank line (or the end of the notebook).
func needsBlank(parts []part, i int) bool {
	for _, p := range parts[i+1:] {
		if p.cell != nil {
			return true
		}
		if p.prose != "" {
			return !strings.HasPrefix(p.prose, "\n")
		}
	}
	return false
}

// markdownTable renders a cell's result; statements without a result set
// (CREATE MACRO, SET) render nothing.
func (nb *Notebook) markdownTable(c *Cell) string {
	t := nb.table(c)
	if len(t.Columns) == 0 {
		return ""
	}
	var b strings.Builder
	heads, rule := make([]string, len(t.Columns)), make([]string, len(t.Columns))
	num := numeric(t)
	for i, col := range t.Columns {
		heads[i], rule[i] = mdEscape(col.Name), "---"
		if num[i] {
			rule[i] = "---:"
		}
	}
	writeMDRow(&b, heads)
	writeMDRow(&b, rule)
	for _, row := range t.Rows {
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = mdEscape(report.FormatValue(v))
		}
		writeMDRow(&b, cells)
	}
	switch {
	case len(t.Rows) == 0:
		b.WriteString("\n*(no rows)*\n")
	case t.Omitted > 0:
		fmt.Fprintf(&b, "\n*(%d more rows not shown)*\n", t.Omitted)
	}
	return b.String()
}

func writeMDRow(b *strings.Builder, cells []string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// numeric marks columns whose non-NULL values are all numbers, to
// right-align them as report does.
func numeric(t report.Table) []bool {
	out := make([]bool, len(t.Columns))
	for i := range t.Columns {
		seen, all := false, true
		for _, row := range t.Rows {
			if row[i] != nil {
				seen, all = true, all && report.IsNumeric(row[i])
			}
		}
		out[i] = seen && all
	}
	return out
}

// mdEscape keeps a value one table cell of plain text: markdown and HTML
// syntax in data (a run named <script>, a pipe, an underscore) shows as
// written instead of being interpreted.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"&", "&amp;", "<", "&lt;", ">", "&gt;", "\r\n", " ", "\n", " ", "\r", " ",
)

// Control characters left after that (ESC, BEL, tabs) are escaped as
// \xNN: markdown shown in a terminal must not move its cursor.
func mdEscape(s string) string { return textsafe.Clean(mdEscaper.Replace(s)) }

// table is the cell's result as a report.Table: the full result, or for a
// chart cell its X and Y columns.
func (nb *Notebook) table(c *Cell) report.Table {
	r := c.Result
	if r == nil || isStatus(r) {
		return report.Table{}
	}
	keep := make([]int, 0, len(r.Columns))
	for i, name := range r.Columns {
		if c.Chart == "" || name == c.X || slices.Contains(c.Y, name) {
			keep = append(keep, i)
		}
	}
	t := report.Table{Omitted: r.Omitted}
	for _, i := range keep {
		t.Columns = append(t.Columns, report.Column{Name: r.Columns[i]})
	}
	rows := r.Rows
	if c.Chart != "" && len(rows) > nb.opts.MaxRows {
		t.Omitted, rows = len(rows)-nb.opts.MaxRows, rows[:nb.opts.MaxRows]
	}
	for _, row := range rows {
		cells := make([]report.Value, len(keep))
		for j, i := range keep {
			cells[j] = row[i]
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// isStatus reports whether r is DuckDB's empty status result of a statement
// such as CREATE MACRO (column Count) or SET (column Success): not worth a
// table.
func isStatus(r *Result) bool {
	return len(r.Rows) == 0 && len(r.Columns) == 1 && (r.Columns[0] == "Count" || r.Columns[0] == "Success")
}
