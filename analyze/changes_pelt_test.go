package analyze

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// l2Cost is ruptures' CostL2, the sum of squared deviations from the
// segment's mean: the vectors' third cost, which checks the search with a
// cost the peer did not need written for it.
type l2Cost struct{ y []float64 }

func (c l2Cost) len() int { return len(c.y) }

func (c l2Cost) cost(t, s int) float64 {
	var m float64
	for _, y := range c.y[t:s] {
		m += y
	}
	m /= float64(s - t)
	var ss float64
	for _, y := range c.y[t:s] {
		ss += (y - m) * (y - m)
	}
	return ss
}

// TestPeltMatchesRuptures holds pelt and the binomial and Poisson costs to
// ruptures' Pelt (jump 1) on the committed vectors (testdata/changes/vectors.py
// says how they were made): the same breakpoints for every case.
func TestPeltMatchesRuptures(t *testing.T) {
	b, err := os.ReadFile("testdata/changes/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Cases []struct {
			Name, Kind     string
			MinSize        int `json:"min_size"`
			Disp, Penalty  float64
			Errors, Judged []int64
			Counts         []int64
			Values         []float64
			Bkps           []int
		}
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) < 30 {
		t.Fatalf("%d vectors, want the 36 vectors.py writes", len(v.Cases))
	}
	changed := 0
	for _, c := range v.Cases {
		var cost segCost
		switch c.Kind {
		case "binomial":
			cost = newBinomialCost(c.Errors, c.Judged, c.Disp)
		case "poisson":
			cost = newPoissonCost(c.Counts, c.Disp)
		case "l2":
			cost = l2Cost{c.Values}
		default:
			t.Fatalf("%s: kind %q", c.Name, c.Kind)
		}
		got := pelt(cost, c.Penalty, c.MinSize)
		if diff := cmp.Diff(c.Bkps, got); diff != "" {
			t.Errorf("%s (min size %d, penalty %g): breakpoints (-ruptures +pelt):\n%s", c.Name, c.MinSize, c.Penalty, diff)
		}
		if len(c.Bkps) > 1 {
			changed++
		}
	}
	if changed < 10 {
		t.Errorf("only %d vectors have a change: the comparison proves little", changed)
	}
}

// BenchmarkPelt segments a stationary binomial series of 1000 intervals
// (the most a run gets by default), where pruning helps least.
func BenchmarkPelt(b *testing.B) {
	r := rand.New(rand.NewPCG(39, 1))
	errs, judged := make([]int64, 1000), make([]int64, 1000)
	for i := range judged {
		judged[i] = 2500 + r.Int64N(100)
		for range judged[i] / 50 {
			if r.IntN(2) == 0 {
				errs[i]++
			}
		}
	}
	c := newBinomialCost(errs, judged, binomialDispersion(errs, judged))
	b.ResetTimer()
	for range b.N {
		pelt(c, DefaultChangesPenalty(1000), DefaultMinSegment)
	}
}
