package report

import "testing"

// TestHidesBurst holds the rule at its edges: strictly more than twice the
// busiest second spread evenly over its ten 100 ms buckets, rounded up.
func TestHidesBurst(t *testing.T) {
	cases := []struct {
		peak100ms, peak1s int64
		want              bool
	}{
		{0, 0, false},
		{1, 1, false},    // one request a second: 10× in ratio_1s, no burst
		{2, 5, false},    // ⌈5/10⌉ = 1: 2 is not more than 2
		{3, 5, true},     // 3 > 2
		{10, 100, false}, // even traffic: ratio 1×
		{20, 100, false}, // 20 = 2 × 10
		{21, 100, true},
		{4, 11, false}, // ⌈11/10⌉ = 2: 4 is not more than 4
		{5, 11, true},
		{11, 11, true}, // every request of the second within 100 ms
	}
	for _, c := range cases {
		if got := hidesBurst(c.peak100ms, c.peak1s); got != c.want {
			t.Errorf("hidesBurst(%d, %d) = %v, want %v", c.peak100ms, c.peak1s, got, c.want)
		}
	}
}
