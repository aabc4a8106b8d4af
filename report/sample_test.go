package report

import (
	"math"
	"strings"
)

// hostile is a run name that would run script if it reached the page as markup.
const hostile = "<script>alert(1)</script>"

// sampleDocument has every kind of content: a table with units, NULLs and a
// hostile run name; a table of many long column names that must wrap to fit
// the page; a step chart with a threshold and a stop mark; a line chart of
// two series at different resolutions; a bar chart of categories; a points
// chart of one dot per request beside two half-width charts.
func sampleDocument() Document {
	return Document{
		Title:    "Experiment chaos-1",
		Subtitle: "log: runs/" + hostile + ".ndjson",
		Keys:     []string{"control", "experiment"},
		Sections: []Section{
			{
				Title: "Blast radius",
				Note:  "Planned vs measured share of affected requests.",
				Tables: []Table{{
					Caption: "per run",
					Columns: []Column{{Name: "run"}, {Name: "planned", Unit: "%"}, {Name: "measured", Unit: "%"}, {Name: "requests"}},
					Rows: [][]Value{
						{"baseline", 0.0, 0.1 + 0.2, int64(12000)},
						{hostile, 10.0, 11.234567, int64(980)},
						{"late", 5.0, nil, int32(7)},
					},
					Omitted: 2,
				}},
				Charts: []Chart{{
					Title: "measured per run", Kind: KindBar, XLabel: "run", YLabel: "%", XKeys: true,
					XLabels: []string{"experiment", "control"},
					Series:  []Series{{Name: "measured", X: []float64{0, 1}, Y: []float64{11.2, 0.3}}},
				}},
			},
			{
				Title:  "Wide",
				Tables: []Table{wideTable()},
			},
			{
				Title: "Replay timeline",
				Charts: []Chart{{
					Title: "ok share per window", Kind: KindStep, XLabel: "t (ms)", YLabel: "ok share",
					Series: []Series{{Name: "run " + hostile, Key: "experiment", X: []float64{0, 100, 200, 300, 400}, Y: []float64{1, 0.99, 0.91, math.NaN(), 0.97}}},
					HLines: []Line{{Label: "threshold", Y: 0.95}},
					VMarks: []Mark{{Label: "stop", X: 200}},
				}},
			},
			{
				Title: "Resolution",
				Charts: []Chart{{
					Title: "errors per window", XLabel: "t (ms)", YLabel: "errors",
					Series: []Series{
						{Name: "100 ms", X: []float64{0, 100, 200, 300, 400, 500}, Y: []float64{0, 4, 30, 2, 0, 1}},
						{Name: "1 s", X: []float64{0, 500}, Y: []float64{3.4, 0.6}},
					},
				}},
			},
			{
				Title: "Falsification sweep",
				Charts: []Chart{{
					Title: "false alarms vs detections", Kind: KindBar, XLabel: "margin", YLabel: "count",
					XLabels: []string{"0.01", "0.02", hostile},
					Series: []Series{
						{Name: "false alarms", X: []float64{0, 1, 2}, Y: []float64{9, 4, 1}},
						{Name: "detections", X: []float64{0, 1, 2}, Y: []float64{10, 9, 6}},
					},
				}},
			},
			{
				Title:  "Latency",
				Charts: latencyCharts(),
			},
		},
	}
}

// wideTable has more columns than the widest table of the SQL library (10),
// with its longest names, so the browser test proves such a table fits a
// 1400 px window.
func wideTable() Table {
	names := []string{"run", "margin", "control_falsified", "control_windows", "experiment_falsified",
		"experiment_windows", "first_falsified_window", "control_damaged", "budget_denied",
		"affected_success", "p95_ms", "window_calls_per_tick"}
	t := Table{Caption: "many columns"}
	row := []Value{"control"}
	for i, n := range names {
		unit := ""
		switch {
		case strings.HasSuffix(n, "_ms"):
			unit = "ms"
		case strings.Contains(n, "damaged") || strings.Contains(n, "denied") || strings.HasSuffix(n, "_requests"):
			unit = "requests"
		}
		t.Columns = append(t.Columns, Column{Name: n, Unit: unit})
		if i > 0 {
			row = append(row, float64(i)*1234.5)
		}
	}
	t.Rows = [][]Value{row, append([]Value{"experiment"}, make([]Value, len(names)-1)...)}
	return t
}

// latencyCharts are one dot per request (ok and error apart), then the
// latency percentiles beside the ok share, at half width.
func latencyCharts() []Chart {
	var okX, okY, errX, errY, bx []float64
	for i := range 300 {
		t := float64(i) / 10
		if i%7 == 3 {
			errX, errY = append(errX, t), append(errY, 400+float64(i%5)*10)
			continue
		}
		okX, okY = append(okX, t), append(okY, 20+float64(i%11)*3)
	}
	for i := range 30 {
		bx = append(bx, float64(i))
	}
	p50, p99, share := make([]float64, 30), make([]float64, 30), make([]float64, 30)
	for i := range bx {
		p50[i], p99[i], share[i] = 30+float64(i%3), 90+float64(i%4)*20, 100-float64(i%5)
	}
	return []Chart{
		{Title: "Latency, run control", Kind: KindPoints, XLabel: "t (s)", YLabel: "latency (ms)",
			Series: []Series{{Name: "ok", X: okX, Y: okY}, {Name: "error", X: errX, Y: errY}}},
		{Title: "Latency percentiles per 1 s", Kind: KindStep, XLabel: "t (s)", YLabel: "latency (ms)", Half: true,
			Series: []Series{{Name: "p50", X: bx, Y: p50}, {Name: "p99", X: bx, Y: p99}}},
		{Title: "Ok share per 1 s", Kind: KindStep, XLabel: "t (s)", YLabel: "ok share (%)", Half: true,
			Series: []Series{{Name: "control", X: bx, Y: share}}},
	}
}

// seriesNames lists, per chart of d in page order, the names of its series:
// what its legend shows.
func seriesNames(d Document) [][]string {
	var out [][]string
	for _, s := range d.Sections {
		for _, c := range s.Charts {
			var names []string
			for _, ser := range c.Series {
				names = append(names, ser.Name)
			}
			out = append(out, names)
		}
	}
	return out
}
