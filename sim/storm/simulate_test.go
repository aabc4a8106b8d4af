package storm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The minimal standard generator with multiplier 48271 started from 1 gives
// 48271, then 48271² mod (2^31−1), and 399268537 as its 10000th value (the
// check value C++ specifies for std::minstd_rand).
func TestLehmerKnownValues(t *testing.T) {
	g := NewLehmer(1)
	var got []int64
	for range 2 {
		g.Float()
		got = append(got, g.state)
	}
	for range 10000 - 2 {
		g.Float()
	}
	got = append(got, g.state)
	if diff := cmp.Diff([]int64{48271, 182605794, 399268537}, got); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
}

func TestLehmerFloatIsStateOverModulus(t *testing.T) {
	g := NewLehmer(20260802)
	u := g.Float()
	if want := float64(20260802*48271%lehmerModulus) / lehmerModulus; u != want {
		t.Errorf("first draw %v, want %v", u, want)
	}
	if u <= 0 || u >= 1 {
		t.Errorf("draw %v outside (0, 1)", u)
	}
}

// Poisson consumes exactly k+1 uniforms for a count of k: the model's later
// draws depend on it.
func TestPoissonConsumesCountPlusOne(t *testing.T) {
	g, shadow := NewLehmer(7), NewLehmer(7)
	for range 1000 {
		k := g.Poisson(0.9722)
		for range k + 1 {
			shadow.Float()
		}
		if g.state != shadow.state {
			t.Fatalf("count %d consumed a different number of draws", k)
		}
	}
}

// With a fixed seed the sample mean and variance land near lambda; the
// tolerance is wide enough for any correct generator of this length.
func TestPoissonMoments(t *testing.T) {
	const lambda, n = 0.9722, 200000
	g := NewLehmer(20260802)
	var sum, sumSq float64
	for range n {
		k := float64(g.Poisson(lambda))
		sum += k
		sumSq += k * k
	}
	mean := sum / n
	variance := sumSq/n - mean*mean
	if d := mean - lambda; d > 0.01 || d < -0.01 {
		t.Errorf("mean %.4f, want %.4f ± 0.01", mean, lambda)
	}
	if d := variance - lambda; d > 0.02 || d < -0.02 {
		t.Errorf("variance %.4f, want %.4f ± 0.02", variance, lambda)
	}
}
