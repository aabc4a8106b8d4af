package report

import (
	"bufio"
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestColorsFollowKeys: a key keeps its colour in every chart; the
// document's Keys come first, whatever order the charts name them in.
func TestColorsFollowKeys(t *testing.T) {
	col := newColors([]string{"control", "experiment"})
	a, _ := newChartData(Chart{Series: []Series{
		{Name: "detections (experiment)", Key: "experiment"}, {Name: "false alarms (control)", Key: "control"},
	}}, col)
	b, _ := newChartData(Chart{Series: []Series{{Name: "control"}, {Name: "per 1 s"}, {Name: "experiment run", Key: "experiment"}}}, col)
	got := []string{a.Series[0].Color, a.Series[1].Color, b.Series[0].Color, b.Series[1].Color, b.Series[2].Color}
	want := []string{palette[1], palette[0], palette[0], palette[2], palette[1]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("colours (-want +got):\n%s", diff)
	}
}

// TestBarsInTheirKeysColour: with XKeys, each bar takes its label's colour.
func TestBarsInTheirKeysColour(t *testing.T) {
	col := newColors([]string{"control", "experiment"})
	d, _ := newChartData(Chart{Kind: KindBar, XKeys: true, XLabels: []string{"experiment", "control", "canary"},
		Series: []Series{{Name: "multiplier", X: []float64{0, 1, 2}, Y: []float64{2, 1, 1.5}}}}, col)
	if diff := cmp.Diff([]string{palette[1], palette[0], palette[2]}, d.XColors); diff != "" {
		t.Errorf("bar colours (-want +got):\n%s", diff)
	}
}

func TestIntegerAxes(t *testing.T) {
	cases := []struct {
		name       string
		c          Chart
		xInt, yInt bool
	}{
		{"k and requests", Chart{Series: []Series{{X: []float64{1, 2, 3}, Y: []float64{8, 28, 44}}}}, true, true},
		{"a gap does not count", Chart{Series: []Series{{X: []float64{1, 2}, Y: []float64{0.5, math.NaN()}}}}, true, false},
		{"seconds", Chart{Series: []Series{{X: []float64{0, 0.1}, Y: []float64{1, 2}}}}, false, true},
		{"a mark between windows", Chart{Series: []Series{{X: []float64{1, 2}, Y: []float64{1, 2}}},
			VMarks: []Mark{{X: 1.5}}}, false, true},
	}
	for _, c := range cases {
		d, _ := newChartData(c.c, newColors(nil))
		if d.XInt != c.xInt || d.YInt != c.yInt {
			t.Errorf("%s: xInt, yInt = %v, %v; want %v, %v", c.name, d.XInt, d.YInt, c.xInt, c.yInt)
		}
	}
}

// TestLongSeriesDownsampled: a points series past MaxPoints is drawn with
// MaxPoints points and the page says so; a step series is never thinned.
func TestLongSeriesDownsampled(t *testing.T) {
	x, y := make([]float64, 3*MaxPoints), make([]float64, 3*MaxPoints)
	for i := range x {
		x[i], y[i] = float64(i), float64(i%17)
	}
	d, notes := newChartData(Chart{Kind: KindPoints, Series: []Series{{Name: "ok", X: x, Y: y}}}, newColors(nil))
	if n := len(d.Series[0].X); n != MaxPoints {
		t.Errorf("drew %d points, want %d", n, MaxPoints)
	}
	if diff := cmp.Diff([]string{"ok: 4000 of 12000 points drawn (LTTB)"}, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	d, notes = newChartData(Chart{Kind: KindStep, Series: []Series{{Name: "ok", X: x, Y: y}}}, newColors(nil))
	if len(d.Series[0].X) != len(x) || len(notes) != 0 {
		t.Errorf("step series: drew %d of %d points, notes %q", len(d.Series[0].X), len(x), notes)
	}
}

// TestNullAndAlignment: the document picks how NULL shows; numbers are
// right-aligned in every column, the first and a mixed one too.
func TestNullAndAlignment(t *testing.T) {
	d := Document{Null: "-", Sections: []Section{{Tables: []Table{{
		Columns: []Column{{Name: "k"}, {Name: "value"}, {Name: "stop_window"}},
		Rows:    [][]Value{{int64(1), "a plan", nil}, {int64(12), 400.0, nil}},
	}}}}}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	writeTable(w, d.Sections[0].Tables[0], nullText(d))
	w.Flush()
	want := strings.Join([]string{
		" k  value   stop_window",
		"--  ------  -----------",
		" 1  a plan            -",
		"12     400            -",
	}, "\n") + "\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("text table (-want +got):\n%s", diff)
	}
	page := renderHTML(t, d)
	for _, cell := range []string{`<td class="num">1</td><td>a plan</td><td class="null num">-</td>`,
		`<td class="num">12</td><td class="num">400</td>`, `<th>value</th><th class="num">stop_<wbr>window</th>`} {
		if !strings.Contains(page, cell) {
			t.Errorf("page lacks %s", cell)
		}
	}
}
