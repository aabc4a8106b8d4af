package chaos

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The fixture summarizes to the numbers the seed's experiment script printed.
func TestSummaryOfFixture(t *testing.T) {
	got := Summarize(DefaultConfig(), readFixture(t))
	want := Summary{Requests: 400, BatchSize: 4, Start: 200, WindowRequests: 200,
		Planned: 11, Measured: 44, Damaged: 52, ControlDamaged: 16}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("summary (-want +got):\n%s", d)
	}
	wantText := `400 requests in batches of 4, experiment on from request 200
planned blast radius         : 11/200 (5.50%) tagged users
measured blast radius        : 44/200 (22.00%) members of tagged batches
blast-radius multiplier      : 4.00×
damaged in experiment window : 52/200 (26.00%)
damaged in control run       : 16/400 (4.00%)
`
	if d := cmp.Diff(wantText, got.String()); d != "" {
		t.Errorf("summary text (-want +got):\n%s", d)
	}
}

// fixed2 must round like JavaScript's toFixed(2): exact binary value, ties up.
func TestFixed2(t *testing.T) {
	cases := map[float64]string{
		0: "0.00", 4: "4.00", 5.5: "5.50", 22: "22.00",
		0.125:   "0.13", // exact tie: %.2f would give 0.12
		0.375:   "0.38",
		1.005:   "1.00", // the double is just below 1.005
		2.0 / 3: "0.67",
	}
	for x, want := range cases {
		if got := fixed2(x); got != want {
			t.Errorf("fixed2(%v) = %q, want %q", x, got, want)
		}
	}
}

func TestSummaryWithoutPlannedUsers(t *testing.T) {
	s := Summary{Requests: 8, BatchSize: 4, Start: 4, WindowRequests: 4}
	if got, want := s.multiplierText(), "n/a (no planned users)"; got != want {
		t.Errorf("multiplierText() = %q, want %q", got, want)
	}
}
