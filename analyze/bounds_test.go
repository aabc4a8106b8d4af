package analyze_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/sim/storm"
)

// The seed's bounds, typed in from its summary: r^d for r = 3 and d = 1..4
// is 3, 9, 27, 81; the 27 attempts of the three-layer chain (backoff base 2,
// cap 32 ticks of 10 ms) can wait 793 ticks = 7.93 s = 39.6 × the 20-tick
// read threshold.
func TestBoundsSeed(t *testing.T) {
	b := storm.Backoff{Base: 2, Cap: 32}
	r := analyze.Bounds([]int{3, 3, 3, 3}, func(c []int) analyze.BoundRow {
		w := storm.Bounds(c, b, 10, 20)
		return analyze.BoundRow{Allowed: w.Allowed, WorstWaitTicks: w.WorstWaitTicks,
			WorstWaitSeconds: w.WorstWaitSeconds, ThresholdRatio: w.ThresholdRatio, SpanTicks: w.SpanTicks}
	})
	if diff := cmp.Diff([]any{int64(3), int64(9), int64(27), int64(81)}, ampColumn(r, "allowed")); diff != "" {
		t.Errorf("allowed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"3", "3x3", "3x3x3", "3x3x3x3"}, ampColumn(r, "layers")); diff != "" {
		t.Errorf("layers (-want +got):\n%s", diff)
	}
	row := r.Rows[2]
	fixed := func(col string, digits int) string {
		return strconv.FormatFloat(row[r.Col(col)].(float64), 'f', digits, 64)
	}
	got := []string{strconv.FormatInt(row[r.Col("worst_wait_ticks")].(int64), 10), fixed("worst_wait_s", 2), fixed("x_threshold", 1)}
	if diff := cmp.Diff([]string{"793", "7.93", "39.6"}, got); diff != "" {
		t.Errorf("worst-case wait of 27 attempts (-want +got):\n%s", diff)
	}
}
