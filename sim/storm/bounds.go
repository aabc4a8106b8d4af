package storm

import (
	"math"
)

// Backoff is exponential backoff with full jitter, in ticks: before retry
// n+1 a caller waits 1 + ⌊u·ceiling(n)⌋ ticks, u uniform in [0, 1).
type Backoff struct {
	Base int // ceiling after the first attempt
	Cap  int // the ceiling never exceeds Cap
}

// Ceiling returns min(Cap, Base·2^attempt), the jitter range after the given
// attempt (0 for the first call).
func (b Backoff) Ceiling(attempt int) int {
	c := b.Base
	for range attempt {
		if c >= b.Cap {
			break // stop doubling before it can overflow
		}
		c *= 2
	}
	return min(c, b.Cap)
}

// Delay returns the ticks from a failed attempt to its retry for the uniform
// draw u. The retry never lands on the same tick, so a tick's list of calls
// is final once it is served.
func (b Backoff) Delay(attempt int, u float64) int {
	return 1 + int(math.Floor(u*float64(b.Ceiling(attempt))))
}

// Bound is what a retry policy allows in the worst case, independent of any
// run: the call multiplier a dependency can see and how long a caller can be
// kept waiting.
type Bound struct {
	// Allowed is the product of the per-layer attempts: d layers that each
	// try r times allow r^d calls per external request.
	Allowed int
	// WorstWaitTicks counts, for each allowed attempt, one tick for the call
	// and the full backoff ceiling after it (the seed's definition).
	WorstWaitTicks int
	// WorstWaitSeconds is WorstWaitTicks in seconds.
	WorstWaitSeconds float64
	// ThresholdRatio is WorstWaitTicks divided by the caller's threshold.
	ThresholdRatio float64
	// SpanTicks is the longest the model can take from the first attempt to
	// the last: a retry lands at most ceiling(n) ticks after attempt n, and
	// the last attempt has no wait after it. It is at most WorstWaitTicks.
	SpanTicks int
}

// UpperBound returns the calls per external request that a chain allows: the
// product of the attempts of its layers.
func UpperBound(layers []int) int {
	allowed := 1
	for _, r := range layers {
		allowed *= r
	}
	return allowed
}

// PowerBounds returns r^d for d = 1..depth: the bound of d layers that each
// try r times.
func PowerBounds(r, depth int) []int {
	out := make([]int, depth)
	for d := range depth {
		layers := make([]int, d+1)
		for i := range layers {
			layers[i] = r
		}
		out[d] = UpperBound(layers)
	}
	return out
}

// WorstWait returns the seed's worst-case cumulative wait of a request that
// uses all its attempts: Σ over attempts n of (1 + ceiling(n)) ticks.
func WorstWait(attempts int, b Backoff) int {
	total := 0
	for n := range attempts {
		total += 1 + b.Ceiling(n)
	}
	return total
}

// Span returns the longest time in ticks from the first attempt to the last
// when all attempts are used: Σ over the attempts that are retried of
// ceiling(n).
func Span(attempts int, b Backoff) int {
	total := 0
	for n := range attempts - 1 {
		total += b.Ceiling(n)
	}
	return total
}

// Bounds returns the worst case of a chain with the given per-layer attempts
// and backoff, for ticks of tickMs milliseconds and a caller that gives up
// after thresholdTicks.
func Bounds(layers []int, b Backoff, tickMs, thresholdTicks int) Bound {
	allowed := UpperBound(layers)
	wait := WorstWait(allowed, b)
	return Bound{
		Allowed:          allowed,
		WorstWaitTicks:   wait,
		WorstWaitSeconds: float64(wait) / ticksPerSecond(tickMs),
		ThresholdRatio:   float64(wait) / float64(thresholdTicks),
		SpanTicks:        Span(allowed, b),
	}
}
