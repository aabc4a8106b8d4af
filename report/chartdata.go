package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// chartData is what the page script gets for one chart. Each series keeps its
// own X; the script joins them with uPlot.join, which marks points a series
// lacks as undefined (drawn joined) and keeps a null Y (a NaN here) as a gap.
type chartData struct {
	Kind    string       `json:"kind"`
	XLabel  string       `json:"xLabel"`
	YLabel  string       `json:"yLabel"`
	XLabels []string     `json:"xLabels,omitempty"`
	XColors []string     `json:"xColors,omitempty"` // a bar's colour per X position (Chart.XKeys)
	XInt    bool         `json:"xInt"`              // every X is an integer: integer ticks
	YInt    bool         `json:"yInt"`
	YRange  []float64    `json:"yRange,omitempty"`
	YFixed  bool         `json:"yFixed,omitempty"` // draw YRange without padding
	Series  []seriesData `json:"series"`
	HLines  []Line       `json:"hLines"`
	VMarks  []Mark       `json:"vMarks"`
	Bands   []Band       `json:"bands,omitempty"` // absent when none, so pages without bands keep their bytes
}

type seriesData struct {
	Name  string     `json:"name"`
	Color string     `json:"color"`
	X     []float64  `json:"x"`
	Y     []*float64 `json:"y"` // nil is JSON null: a gap
}

// pageData is the JSON document embedded in the page.
type pageData struct {
	Charts []chartData `json:"charts"`
}

// palette is Tableau 10, reordered so that the first two runs of a report
// (usually control and experiment) are blue and red.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"}

// neutral is the legend colour of a series whose bars are coloured by key.
const neutral = "#59636e"

// colors gives each series key one colour for the whole document.
type colors map[string]int

func newColors(keys []string) colors {
	c := colors{}
	for _, k := range keys {
		c.of(k)
	}
	return c
}

func (c colors) of(key string) string {
	i, ok := c[key]
	if !ok {
		i = len(c)
		c[key] = i
	}
	return palette[i%len(palette)]
}

// newChartData lays out a chart for the script. It returns notes for the
// page about series it downsampled.
func newChartData(c Chart, col colors) (chartData, []string) {
	d := chartData{
		Kind:    chartKind(c.Kind),
		XLabel:  c.XLabel,
		YLabel:  c.YLabel,
		XLabels: c.XLabels,
		Series:  []seriesData{},
		HLines:  []Line{},
		VMarks:  []Mark{},
	}
	if c.YRange[0] < c.YRange[1] && isFinite(c.YRange[0]) && isFinite(c.YRange[1]) {
		d.YRange, d.YFixed = c.YRange[:], c.YFixed
	}
	if c.XKeys && d.Kind == KindBar {
		for _, l := range c.XLabels {
			d.XColors = append(d.XColors, col.of(l))
		}
	}
	var notes []string
	for _, s := range c.Series {
		sd := newSeriesData(s)
		if d.Kind == KindPoints {
			sd = dropGaps(sd) // a dot that is not there needs no place
		}
		if n := len(sd.X); n > MaxPoints && (d.Kind == KindLine || d.Kind == KindPoints) && !hasGaps(sd) {
			sd = downsample(sd)
			notes = append(notes, fmt.Sprintf("%s: %d of %d points drawn (LTTB)", s.Name, len(sd.X), n))
		}
		sd.Color = col.of(seriesKey(s))
		if d.XColors != nil {
			sd.Color = neutral // the bars carry the keys' colours
		}
		d.Series = append(d.Series, sd)
	}
	d.XInt, d.YInt = integral(d.Series, c.VMarks)
	// JSON has no NaN or Inf; a reference line there cannot be drawn anyway.
	for _, h := range c.HLines {
		if isFinite(h.Y) {
			d.HLines = append(d.HLines, h)
		}
	}
	for _, m := range c.VMarks {
		if isFinite(m.X) {
			d.VMarks = append(d.VMarks, m)
		}
	}
	for _, b := range c.Bands {
		if isFinite(b.From) && isFinite(b.To) && b.From <= b.To {
			d.Bands = append(d.Bands, b)
		}
	}
	return d, notes
}

func seriesKey(s Series) string {
	if s.Key != "" {
		return s.Key
	}
	return s.Name
}

func chartKind(k string) string {
	switch k {
	case KindBar, KindStep, KindPoints:
		return k
	}
	return KindLine
}

// integral reports whether every X (and every mark) and every Y of the
// series is an integer, so that the axis ticks can be integers too: a count
// of windows has no 0.75. Reference lines do not count; they are drawn
// wherever they fall between ticks.
func integral(series []seriesData, marks []Mark) (xInt, yInt bool) {
	xInt, yInt = true, true
	for _, s := range series {
		for i, x := range s.X {
			xInt = xInt && x == math.Trunc(x)
			if y := s.Y[i]; y != nil {
				yInt = yInt && *y == math.Trunc(*y)
			}
		}
	}
	for _, m := range marks {
		xInt = xInt && m.X == math.Trunc(m.X)
	}
	return xInt, yInt
}

func hasGaps(s seriesData) bool {
	return slices.Contains(s.Y, nil)
}

func dropGaps(s seriesData) seriesData {
	out := seriesData{Name: s.Name, X: []float64{}, Y: []*float64{}}
	for i, y := range s.Y {
		if y != nil {
			out.X, out.Y = append(out.X, s.X[i]), append(out.Y, y)
		}
	}
	return out
}

func downsample(s seriesData) seriesData {
	ys := make([]float64, len(s.Y))
	for i, y := range s.Y {
		ys[i] = *y
	}
	x, y := LTTB(s.X, ys, MaxPoints)
	out := seriesData{Name: s.Name, X: x, Y: make([]*float64, len(y))}
	for i := range y {
		out.Y[i] = &y[i]
	}
	return out
}

// newSeriesData drops points without a finite X, turns non-finite Y into
// gaps, and sorts by X (stable, so equal X keep their order), because
// uPlot.join needs ascending X.
func newSeriesData(s Series) seriesData {
	type point struct {
		x float64
		y *float64
	}
	var pts []point
	for i, x := range s.X {
		if !isFinite(x) || i >= len(s.Y) {
			continue
		}
		p := point{x: x}
		if y := s.Y[i]; isFinite(y) {
			p.y = &y
		}
		pts = append(pts, p)
	}
	slices.SortStableFunc(pts, func(a, b point) int { return cmp.Compare(a.x, b.x) })
	out := seriesData{Name: s.Name, X: make([]float64, len(pts)), Y: make([]*float64, len(pts))}
	for i, p := range pts {
		out.X[i], out.Y[i] = p.x, p.y
	}
	return out
}

func isFinite(f float64) bool {
	return !math.IsNaN(f) && !math.IsInf(f, 0)
}
