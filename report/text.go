package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/rewind-dev/rewind/internal/textsafe"
)

// RenderText writes d as plain text: the same sections as RenderHTML, tables
// aligned with units in the headers (numbers right-aligned), and each chart
// summarized per series (points, X span, Y min/max and where Y peaks).
// Section.HTML is skipped: it is markup for the page only, as are the
// drawing hints (Keys, Half, YRange, XKeys) and the downsampling of long
// series, so the summaries count every point. Control characters
// from data are shown escaped, so a log string cannot drive the terminal.
func RenderText(w io.Writer, d Document) error {
	bw := bufio.NewWriter(w)
	if d.Title != "" {
		underline(bw, d.Title, "=")
	}
	if d.Subtitle != "" {
		fmt.Fprintf(bw, "%s\n", textsafe.Clean(d.Subtitle))
	}
	for _, s := range d.Sections {
		writeSection(bw, s, nullText(d))
	}
	if d.Footer != "" {
		fmt.Fprintf(bw, "\n--\n%s\n", textsafe.Clean(d.Footer))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render text: %w", err)
	}
	return nil
}

func writeSection(w *bufio.Writer, s Section, null string) {
	w.WriteString("\n")
	if s.Title != "" {
		underline(w, s.Title, "-")
	}
	if s.Note != "" {
		fmt.Fprintf(w, "%s\n", textsafe.Clean(s.Note))
	}
	if s.Code != "" {
		for _, line := range strings.Split(strings.TrimRight(s.Code, "\n"), "\n") {
			fmt.Fprintf(w, "    %s\n", textsafe.Clean(line))
		}
	}
	for _, t := range s.Tables {
		w.WriteString("\n")
		writeTable(w, t, null)
	}
	for _, c := range s.Charts {
		w.WriteString("\n")
		writeChart(w, c, null)
	}
}

func underline(w *bufio.Writer, title, mark string) {
	title = textsafe.Clean(title)
	fmt.Fprintf(w, "%s\n%s\n", title, strings.Repeat(mark, utf8.RuneCountInString(title)))
}

// writeTable writes a caption, a header row, a rule and the rows, each column
// as wide as its widest cell; numbers are right-aligned (see rightAligned).
func writeTable(w *bufio.Writer, t Table, null string) {
	if t.Caption != "" {
		fmt.Fprintf(w, "%s\n", textsafe.Clean(t.Caption))
	}
	num := numericColumns(t)
	grid := [][]string{make([]string, len(t.Columns))}
	right := [][]bool{num}
	for c, col := range t.Columns {
		grid[0][c] = textsafe.Clean(col.header())
	}
	for _, row := range t.Rows {
		cells, align := make([]string, len(t.Columns)), make([]bool, len(t.Columns))
		for c := range t.Columns {
			cells[c], align[c] = textsafe.Clean(cell(row, c, null)), rightAligned(row, c, num[c])
		}
		grid, right = append(grid, cells), append(right, align)
	}
	widths := columnWidths(grid)
	rule := make([]string, len(widths))
	for c, n := range widths {
		rule[c] = strings.Repeat("-", n)
	}
	writeRow(w, grid[0], widths, right[0])
	writeRow(w, rule, widths, nil)
	for i, cells := range grid[1:] {
		writeRow(w, cells, widths, right[i+1])
	}
	if t.Omitted > 0 {
		fmt.Fprintf(w, "(%d more rows not shown)\n", t.Omitted)
	}
}

func columnWidths(grid [][]string) []int {
	widths := make([]int, len(grid[0]))
	for _, row := range grid {
		for c, s := range row {
			widths[c] = max(widths[c], utf8.RuneCountInString(s))
		}
	}
	return widths
}

func writeRow(w *bufio.Writer, cells []string, widths []int, num []bool) {
	parts := make([]string, len(cells))
	for c, s := range cells {
		pad := strings.Repeat(" ", widths[c]-utf8.RuneCountInString(s))
		if num != nil && num[c] {
			parts[c] = pad + s
		} else {
			parts[c] = s + pad
		}
	}
	w.WriteString(strings.TrimRight(strings.Join(parts, "  "), " ") + "\n")
}

// writeChart summarizes a chart as a table, one row per series, followed by
// its reference lines and marks.
func writeChart(w *bufio.Writer, c Chart, null string) {
	title := c.Title
	if title == "" {
		title = "chart"
	}
	fmt.Fprintf(w, "%s [%s chart; x: %s, y: %s]\n", textsafe.Clean(title), chartKind(c.Kind),
		textsafe.Clean(axisName(c.XLabel, "x")), textsafe.Clean(axisName(c.YLabel, "y")))
	t := Table{Columns: []Column{{Name: "series"}, {Name: "points"}, {Name: "x from"}, {Name: "x to"},
		{Name: "y min"}, {Name: "y max"}, {Name: "x at y max"}}}
	for _, s := range c.Series {
		t.Rows = append(t.Rows, seriesSummary(s, c.XLabels))
	}
	writeTable(w, t, null)
	for _, r := range append(bandRefs(c), refs(c)...) {
		fmt.Fprintf(w, "%s\n", textsafe.Clean(r))
	}
}

// seriesSummary is one row of a chart summary: finite points only; X values
// show as their category names when the chart has them.
func seriesSummary(s Series, xLabels []string) []Value {
	n, xmin, xmax := 0, math.Inf(1), math.Inf(-1)
	ymin, ymax, xpeak := math.Inf(1), math.Inf(-1), math.NaN()
	for i, x := range s.X {
		if i >= len(s.Y) || !isFinite(x) || !isFinite(s.Y[i]) {
			continue
		}
		y := s.Y[i]
		n++
		xmin, xmax, ymin = min(xmin, x), max(xmax, x), min(ymin, y)
		if y > ymax {
			ymax, xpeak = y, x
		}
	}
	if n == 0 {
		return []Value{s.Name, 0, nil, nil, nil, nil, nil}
	}
	return []Value{s.Name, n, xValue(xmin, xLabels), xValue(xmax, xLabels), ymin, ymax, xValue(xpeak, xLabels)}
}

func xValue(x float64, labels []string) Value {
	if i := int(x); float64(i) == x && i >= 0 && i < len(labels) {
		return labels[i]
	}
	return x
}
