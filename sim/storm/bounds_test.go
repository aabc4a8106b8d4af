package storm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

var seedBackoff = Backoff{Base: 2, Cap: 32}

func TestBackoffCeiling(t *testing.T) {
	got := make([]int, 0, 8)
	for _, n := range []int{0, 1, 2, 3, 4, 5, 26, 200} {
		got = append(got, seedBackoff.Ceiling(n))
	}
	if diff := cmp.Diff([]int{2, 4, 8, 16, 32, 32, 32, 32}, got); diff != "" {
		t.Errorf("ceilings (-want +got):\n%s", diff)
	}
}

// Full jitter spreads a retry over 1..ceiling ticks after the failure.
func TestBackoffDelay(t *testing.T) {
	cases := []struct {
		attempt int
		u       float64
		want    int
	}{
		{0, 0, 1}, {0, 0.49, 1}, {0, 0.5, 2}, {0, 0.9999, 2},
		{3, 0, 1}, {3, 0.9999, 16}, {9, 0.5, 17}, {9, 0.9999, 32},
	}
	for _, c := range cases {
		if got := seedBackoff.Delay(c.attempt, c.u); got != c.want {
			t.Errorf("Delay(%d, %v) = %d, want %d", c.attempt, c.u, got, c.want)
		}
	}
}

func TestPowerBounds(t *testing.T) {
	if diff := cmp.Diff([]int{3, 9, 27, 81}, PowerBounds(3, 4)); diff != "" {
		t.Errorf("3^d (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{2, 4}, PowerBounds(2, 2)); diff != "" {
		t.Errorf("2^d (-want +got):\n%s", diff)
	}
	if got := UpperBound([]int{3, 1, 2}); got != 6 {
		t.Errorf("UpperBound(3,1,2) = %d, want 6", got)
	}
}

// 27 attempts: each costs a tick, and the ceilings after them are 2, 4, 8,
// 16 and then 32 for the remaining 23.
func TestBoundsThreeLayers(t *testing.T) {
	wantWait := 27 + 2 + 4 + 8 + 16 + 23*32
	wantSpan := 2 + 4 + 8 + 16 + 22*32 // the last attempt is not followed by a wait
	got := Bounds([]int{3, 3, 3}, seedBackoff, 10, 20)
	want := Bound{Allowed: 27, WorstWaitTicks: wantWait, WorstWaitSeconds: 7.93,
		ThresholdRatio: float64(wantWait) / 20, SpanTicks: wantSpan}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bounds (-want +got):\n%s", diff)
	}
	if s := fixed(got.ThresholdRatio, 1); s != "39.6" {
		t.Errorf("ratio printed as %s, want 39.6", s)
	}
}

func TestBoundsSingleAttempt(t *testing.T) {
	got := Bounds([]int{1}, seedBackoff, 10, 20)
	if got.WorstWaitTicks != 3 || got.SpanTicks != 0 {
		t.Errorf("one attempt: wait %d span %d, want 3 and 0", got.WorstWaitTicks, got.SpanTicks)
	}
}

// The simulator never keeps a request longer than Span: under a dependency
// that serves nothing, requests use all 27 attempts and the longest observed
// span from first to last attempt reaches close to the bound but not past it.
func TestSimulatorStaysWithinSpan(t *testing.T) {
	p := DefaultParams()
	sc := Scenario{Name: "down", Window: p.Ticks, Capacity: 0}
	p.FaultStart = 0
	pol := Policy{Name: "3x3x3", Layers: []int{3, 3, 3}}
	first, longest, full := map[int64]int{}, 0, 0
	_, err := Simulate(p, sc, pol, func(c Call) error {
		if c.Attempt == 0 {
			first[c.Req] = c.Tick
		}
		longest = max(longest, c.Tick-first[c.Req])
		if c.Attempt == 26 {
			full++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	bound := Span(27, seedBackoff)
	if full == 0 || longest > bound || longest < bound/2 {
		t.Errorf("%d requests used all attempts, longest span %d ticks, bound %d", full, longest, bound)
	}
}
