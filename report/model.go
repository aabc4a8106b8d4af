// Package report owns the rendering of analysis results for people: one
// self-contained HTML page with charts (RenderHTML) and the same content as
// aligned text tables (RenderText).
//
// Callers fill a Document from their results; this package never runs a
// query or reads a log, so the numbers a report shows are exactly those the
// caller computed with the same SQL as `rewind analyze`.
//
// Every string in a Document is data and is escaped on output: a run named
// `<script>alert(1)</script>` shows as that text. The one exception is
// Section.HTML, which holds markup the caller produced itself (for example a
// markdown renderer in safe mode) and must never hold raw log strings.
package report

import "html/template"

// Document is one report: a title and its sections, in order.
type Document struct {
	Title    string
	Subtitle string // e.g. the experiment and the log file; optional
	Sections []Section
	// Keys are the series keys (see Series.Key) that get the first colours,
	// in this order: e.g. every run of the experiment, so that a run has
	// the same colour in every chart, even in one where another run is
	// missing. Other keys take the next colours as they first appear.
	Keys []string
	// Null is how a NULL cell shows in tables; empty means Null ("NULL").
	// The experiment report uses "-", as `rewind analyze` does.
	Null string
	// Footer closes the report, e.g. the rewind version and the date it
	// was made ("rewind v1.2.0, 2026-12-02T20:40:00Z"); optional.
	Footer string
}

// Section is one part of a report. Sections with a Title get a heading and an
// entry in the page's table of contents; untitled ones flow as plain content.
// Within a section the order is: HTML, Note, Code, Tables, Charts.
type Section struct {
	ID     string // anchor for links; derived from Title when empty
	Title  string
	HTML   template.HTML // trusted markup shown first; HTML output only
	Note   string        // a short explanation shown under the title
	Code   string        // preformatted text, e.g. the SQL that made the results
	Tables []Table
	Charts []Chart
}

// Table is a result table. Each row has one Value per column.
type Table struct {
	Caption string
	Columns []Column
	Rows    [][]Value
	// Omitted counts rows the caller left out (e.g. past a display limit);
	// when positive the output says so under the table.
	Omitted int
}

// Column names a table column and its unit ("ms", "req/s", "%"; empty for
// none). Units go into headers so cells stay plain numbers, except "share"
// and "x", which the cells show (96.00 %, 4.00×) and headers leave out;
// RenderJSON gives every unit, beside the plain number.
type Column struct {
	Name string
	Unit string
}

// Value is one table cell: nil (NULL), a string, a bool, any integer or float
// kind, a time.Time, []byte, or any fmt.Stringer (e.g. DuckDB decimals).
// FormatValue defines how each shows; other types fall back to fmt.Sprint.
type Value = any

// Chart kinds.
const (
	KindLine   = "line"   // points joined by straight lines
	KindBar    = "bar"    // one bar per point
	KindStep   = "step"   // a value holds until the next point (windowed series)
	KindPoints = "points" // a dot per point, not joined (e.g. one per request)
)

// Chart is a chart over one X axis. Series may have different X values (e.g.
// the same metric at 100 ms and at 1 s): they are drawn on the union of X,
// each series only where it has points. An axis whose values are all
// integers gets integer ticks.
//
// Line and points series longer than MaxPoints are downsampled for drawing
// (LTTB); the text output and the list under the chart say so.
type Chart struct {
	Title  string
	Kind   string // KindLine, KindBar, KindStep or KindPoints; empty means KindLine
	XLabel string
	YLabel string
	// YRange, when YRange[0] < YRange[1], fits the Y scale to that span
	// instead of to the chart's data, so that charts meant to be compared
	// (e.g. one per run) share a scale.
	YRange [2]float64
	// YFixed draws YRange as it is, without the padding to round ticks
	// (e.g. an ok-share axis from 90 % to 100 %, see okShareRange).
	YFixed bool
	// Half draws the chart at half width, beside its neighbour when that is
	// half width too (e.g. latency percentiles beside the ok share).
	Half bool
	// XLabels, when set, names the X positions 0, 1, 2, ... so that a chart
	// (usually a bar chart) can have categories such as run names on X.
	XLabels []string
	// XKeys says the XLabels are series keys (e.g. runs): each bar then
	// takes the colour of its label, as that run has in other charts.
	XKeys  bool
	Series []Series
	HLines []Line // horizontal reference lines, e.g. a threshold
	VMarks []Mark // vertical markers, e.g. the moment a stop fired
	// Bands are shaded spans of X, e.g. the fault window; the legend under
	// the chart (and the text output) says what each one is.
	Bands []Band
}

// Series is one named sequence of points. X must be ascending; X and Y have
// the same length. A NaN in Y leaves a gap.
type Series struct {
	Name string
	// Key is what the series is of (a run, a resolution); it picks the
	// colour, so series with the same key have the same colour everywhere
	// in the document. Empty means the Name.
	Key  string
	X, Y []float64
}

// Line is a horizontal reference line at Y.
type Line struct {
	Label string
	Y     float64
}

// Mark is a vertical marker at X.
type Mark struct {
	Label string
	X     float64
}

// Band is a shaded span of X, From to To (From == To is a thin band).
type Band struct {
	Label    string
	From, To float64
}
