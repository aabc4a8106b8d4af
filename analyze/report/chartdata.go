package report

import (
	"cmp"
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
	Series  []seriesData `json:"series"`
	HLines  []Line       `json:"hLines"`
	VMarks  []Mark       `json:"vMarks"`
}

type seriesData struct {
	Name string     `json:"name"`
	X    []float64  `json:"x"`
	Y    []*float64 `json:"y"` // nil is JSON null: a gap
}

// pageData is the JSON document embedded in the page.
type pageData struct {
	Charts []chartData `json:"charts"`
}

func newChartData(c Chart) chartData {
	d := chartData{
		Kind:    chartKind(c.Kind),
		XLabel:  c.XLabel,
		YLabel:  c.YLabel,
		XLabels: c.XLabels,
		Series:  []seriesData{},
		HLines:  []Line{},
		VMarks:  []Mark{},
	}
	for _, s := range c.Series {
		d.Series = append(d.Series, newSeriesData(s))
	}
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
	return d
}

func chartKind(k string) string {
	switch k {
	case KindBar, KindStep:
		return k
	}
	return KindLine
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
