package report

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
)

// uPlot (https://github.com/leeoniya/uPlot) draws the charts. It was chosen
// over Chart.js because it is maintained, has no dependencies, is about a
// quarter of the size (51 kB minified, inlined into every report), and is
// built for long time series such as 100 ms windows over a whole run. It sets
// titles and legend labels with textContent, so data never becomes markup.
// assets/fetch.sh fetches the pinned version from the npm registry and checks
// it against assets/SHA256SUMS; the files are committed so a build needs Go only.
//
//go:embed assets/uPlot.iife.min.js
var uplotJS string

//go:embed assets/uPlot.min.css
var uplotCSS string

//go:embed assets/SHA256SUMS
var assetSums string

//go:embed page/report.js
var pageJS string

//go:embed page/report.css
var pageCSS string

//go:embed page/page.tmpl
var pageFiles embed.FS

var pageTemplate = template.Must(template.ParseFS(pageFiles, "page/page.tmpl"))

// pageView is what page.tmpl renders: the Document with IDs resolved, cells
// formatted and chart data laid out, so the template only places things.
type pageView struct {
	Title, Subtitle string
	Footer          string
	TOC             []tocEntry
	Sections        []sectionView
	Data            pageData
	LibCSS, CSS     template.CSS
	LibJS, JS       template.JS
	null            string
	colors          colors
}

type tocEntry struct{ ID, Title string }

type sectionView struct {
	Section
	TableViews []tableView
	ChartViews []chartView
}

type tableView struct {
	Caption string
	Heads   []headView
	Rows    [][]cellView
	Omitted int
}

type headView struct {
	// Parts is the name cut after each underscore, so that a long column
	// name (first_falsified_window) can wrap there instead of widening
	// the table past the page.
	Parts []string
	Unit  string
	Num   bool
}

type cellView struct {
	Text      string
	Num, Null bool
}

type chartView struct {
	Index int
	Chart
	Refs  []string // reference lines and marks, listed under the chart
	Bands []string // what each shaded band is, listed with a swatch
}

// RenderHTML writes d as one self-contained HTML page: styles, the chart
// library, the page script and the chart data are all inline, and nothing is
// loaded from the network when the page is viewed. The same Document always
// gives the same bytes.
func RenderHTML(w io.Writer, d Document) error {
	if err := pageTemplate.Execute(w, newPageView(d)); err != nil {
		return fmt.Errorf("render html: %w", err)
	}
	return nil
}

func newPageView(d Document) pageView {
	// Marking the embedded files CSS/JS is safe: they come from this
	// package, never from data.
	v := pageView{
		Title: d.Title, Subtitle: d.Subtitle, Footer: d.Footer, Data: pageData{Charts: []chartData{}},
		LibCSS: template.CSS(uplotCSS), CSS: template.CSS(pageCSS),
		LibJS: template.JS(uplotJS), JS: template.JS(pageJS),
		null: nullText(d), colors: newColors(d.Keys),
	}
	ids := sectionIDs(d.Sections)
	for i, s := range d.Sections {
		s.ID = ids[i]
		if s.Title != "" {
			v.TOC = append(v.TOC, tocEntry{ID: s.ID, Title: s.Title})
		}
		v.Sections = append(v.Sections, v.section(s))
	}
	return v
}

func (v *pageView) section(s Section) sectionView {
	sv := sectionView{Section: s}
	for _, t := range s.Tables {
		sv.TableViews = append(sv.TableViews, newTableView(t, v.null))
	}
	for _, c := range s.Charts {
		data, notes := newChartData(c, v.colors)
		sv.ChartViews = append(sv.ChartViews, chartView{Index: len(v.Data.Charts), Chart: c,
			Refs: append(refs(c), notes...), Bands: bandRefs(c)})
		v.Data.Charts = append(v.Data.Charts, data)
	}
	return sv
}

func newTableView(t Table, null string) tableView {
	num := numericColumns(t)
	tv := tableView{Caption: t.Caption, Omitted: t.Omitted}
	for i, c := range t.Columns {
		tv.Heads = append(tv.Heads, headView{Parts: nameParts(c.Name), Unit: c.shownUnit(), Num: num[i]})
	}
	for _, row := range t.Rows {
		cells := make([]cellView, len(t.Columns))
		for c := range t.Columns {
			isNull := c >= len(row) || row[c] == nil
			cells[c] = cellView{Text: cell(row, c, null), Num: rightAligned(row, c, num[c]), Null: isNull}
		}
		tv.Rows = append(tv.Rows, cells)
	}
	return tv
}

// nameParts cuts a long name after each underscore: "first_falsified" is
// "first_", "falsified"; a short one (p95_ms) stays whole.
func nameParts(name string) []string {
	if len(name) <= 10 {
		return []string{name}
	}
	parts := strings.SplitAfter(name, "_")
	if n := len(parts); n > 1 && parts[n-1] == "" {
		parts = parts[:n-1]
	}
	return parts
}

// refs lists a chart's reference lines and marks as text, so they can be read
// (and searched) without looking at the canvas.
func refs(c Chart) []string {
	var out []string
	for _, h := range c.HLines {
		out = append(out, fmt.Sprintf("%s: %s = %s", h.Label, axisName(c.YLabel, "y"), FormatFloat(h.Y)))
	}
	for _, m := range c.VMarks {
		out = append(out, fmt.Sprintf("%s: %s = %s", m.Label, axisName(c.XLabel, "x"), FormatFloat(m.X)))
	}
	return out
}

// bandRefs names a chart's shaded bands and their spans: the legend of the
// shading.
func bandRefs(c Chart) []string {
	var out []string
	for _, b := range c.Bands {
		out = append(out, fmt.Sprintf("shaded: %s, %s = %s to %s", b.Label, axisName(c.XLabel, "x"), FormatFloat(b.From), FormatFloat(b.To)))
	}
	return out
}

func axisName(label, fallback string) string {
	if label == "" {
		return fallback
	}
	return label
}

// sectionIDs gives every section a unique anchor: its ID, or a slug of its
// title, or its position; repeats get a numeric suffix.
func sectionIDs(sections []Section) []string {
	seen := map[string]int{}
	ids := make([]string, len(sections))
	for i, s := range sections {
		id := slug(s.ID)
		if id == "" {
			id = slug(s.Title)
		}
		if id == "" {
			id = "s" + strconv.Itoa(i+1)
		}
		seen[id]++
		if n := seen[id]; n > 1 {
			id += "-" + strconv.Itoa(n)
		}
		ids[i] = id
	}
	return ids
}

// slug keeps ASCII letters and digits, lowercased, joined by single dashes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}
