package notebook

import (
	"context"
	"slices"
	"testing"
)

func TestAxisLabel(t *testing.T) {
	cases := []struct {
		cols []string
		want string
	}{
		{[]string{"t_ms"}, "t (ms)"},
		{[]string{"ok_share"}, "ok share (%)"},
		{[]string{"window_no"}, "window no"},
		{[]string{"p50_ms", "p99_ms"}, "p50, p99 (ms)"},
		{[]string{"ok", "errors"}, "ok, errors"},
		{[]string{"ok_share", "errors"}, "ok share (%), errors"},
		{[]string{"margin"}, "margin (%)"},
		{[]string{"multiplier"}, "multiplier (×)"},
	}
	for _, c := range cases {
		if got := axisLabel(c.cols); got != c.want {
			t.Errorf("axisLabel(%q) = %q, want %q", c.cols, got, c.want)
		}
	}
}

// TestChartUnits: a chart of shares over ms shows percent and labels both
// axes with their units, as `rewind analyze` prints them.
func TestChartUnits(t *testing.T) {
	src := []byte("```sql chart=line x=t_ms y=ok_share,latency_ms\n" +
		"SELECT * FROM (VALUES (0, 0.96, 12.5), (100, 0.5, NULL)) AS v(t_ms, ok_share, latency_ms) ORDER BY t_ms\n```\n")
	nb, err := Run(context.Background(), openDB(t), "units.md", src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := nb.chart(nb.Cells()[0])
	if err != nil {
		t.Fatal(err)
	}
	if ch.XLabel != "t (ms)" || ch.YLabel != "ok share (%), latency (ms)" {
		t.Errorf("labels x %q, y %q; want t (ms) and ok share (%%), latency (ms)", ch.XLabel, ch.YLabel)
	}
	if got := ch.Series[0].Y; !slices.Equal(got, []float64{96, 50}) {
		t.Errorf("ok_share drawn as %v, want percent 96, 50", got)
	}
	if got := ch.Series[1].Y[0]; got != 12.5 || ch.Series[0].X[1] != 100 {
		t.Errorf("ms values changed: latency %v, t %v", got, ch.Series[0].X)
	}
}
