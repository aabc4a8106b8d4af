package analyze

import (
	"math"
	"slices"
)

// PELT (Killick, Fearnhead and Eckley 2012, "Optimal detection of
// changepoints with a linear computational cost", JASA 107(500)) finds the
// segmentation of a series that minimises the sum of its segments' costs
// plus a penalty per segment, exactly: F(s) = min over t of F(t) + C(t, s)
// + penalty, and a t that can no longer start the last segment of an
// optimal segmentation (F(t) + C(t, s) > F(s)) is pruned. Here every
// segment holds at least minSize points, and of equal candidates the
// earliest t is kept (as ruptures' Pelt does with jump = 1, the peer of
// TestPeltMatchesRuptures).

// segCost is the cost of the points [t, s) of a series: −2 times its
// maximised log-likelihood, divided by the series' dispersion.
type segCost interface {
	cost(t, s int) float64
	len() int
}

// pelt returns the ends of the segments (the last is the series' length),
// [] for a series too short to hold one segment of minSize.
func pelt(c segCost, penalty float64, minSize int) []int {
	n := c.len()
	if minSize < 1 {
		minSize = 1
	}
	if n < minSize {
		return nil
	}
	f := make([]float64, n+1) // f[s]: the best cost of [0, s), penalties included
	last := make([]int, n+1)  // last[s]: where the last segment of that best starts
	done := make([]bool, n+1) // f[s] is known (s = 0 or s >= minSize)
	done[0] = true
	var adm []int
	var vals []float64
	for s := minSize; s <= n; s++ {
		if t := s - minSize; done[t] {
			adm = append(adm, t)
		}
		best, arg := math.Inf(1), -1
		vals = slices.Grow(vals[:0], len(adm))[:len(adm)]
		for i, t := range adm {
			vals[i] = f[t] + c.cost(t, s) + penalty
			if vals[i] < best {
				best, arg = vals[i], t
			}
		}
		if arg < 0 {
			continue
		}
		f[s], last[s], done[s] = best, arg, true
		kept := adm[:0]
		for i, t := range adm {
			if vals[i] <= best+penalty {
				kept = append(kept, t)
			}
		}
		adm = kept
	}
	if !done[n] {
		return nil
	}
	var ends []int
	for s := n; s > 0; s = last[s] {
		ends = append(ends, s)
	}
	for i, j := 0, len(ends)-1; i < j; i, j = i+1, j-1 {
		ends[i], ends[j] = ends[j], ends[i]
	}
	return ends
}

// xlogy is x·ln(y), 0 when x is 0 (the limit the likelihoods need).
func xlogy(x, y float64) float64 {
	if x == 0 {
		return 0
	}
	return x * math.Log(y)
}

// binomialCost: errors e_k among n_k judged requests per interval, one
// error probability per segment. −2 log L = −2 (E ln p + (N − E) ln(1 − p))
// with p = E / N (the binomial coefficients do not depend on the
// segmentation and cancel).
type binomialCost struct {
	e, n []int64 // prefix sums: e[k] errors in the points before k
	disp float64
}

func newBinomialCost(errs, judged []int64, disp float64) *binomialCost {
	return &binomialCost{e: prefix(errs), n: prefix(judged), disp: disp}
}

func (b *binomialCost) len() int { return len(b.e) - 1 }

func (b *binomialCost) cost(t, s int) float64 {
	e, n := float64(b.e[s]-b.e[t]), float64(b.n[s]-b.n[t])
	if n == 0 {
		return 0
	}
	return -2 * (xlogy(e, e/n) + xlogy(n-e, (n-e)/n)) / b.disp
}

// poissonCost: requests x_k per interval, one rate per segment. −2 log L =
// −2 (X ln(X / m) − X) over the segment's m intervals (ln x_k! cancels).
type poissonCost struct {
	x    []int64
	disp float64
}

func newPoissonCost(xs []int64, disp float64) *poissonCost {
	return &poissonCost{x: prefix(xs), disp: disp}
}

func (p *poissonCost) len() int { return len(p.x) - 1 }

func (p *poissonCost) cost(t, s int) float64 {
	x, m := float64(p.x[s]-p.x[t]), float64(s-t)
	return -2 * (xlogy(x, x/m) - x) / p.disp
}

func prefix(xs []int64) []int64 {
	out := make([]int64, len(xs)+1)
	for i, x := range xs {
		out[i+1] = out[i] + x
	}
	return out
}
