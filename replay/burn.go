package replay

import (
	"container/heap"
	"fmt"
	"math"
	"math/big"
	"sort"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
)

// BurnConfig is the stop criterion --stop-on burn-rate: multi-window,
// multi-burn-rate SLO alerts, as analyze burn-rate replays them.
type BurnConfig struct {
	SLO     hypothesis.Decimal
	Rules   []hypothesis.BurnRule // default hypothesis.DefaultBurnRules
	Step    time.Duration         // 0: evaluate at every change
	Partial bool
}

// BurnFire is the first firing of a rule.
type BurnFire struct {
	Rule         string
	AtMs         float64 // ms of test time (from the run's first send)
	Requests     int64   // SLI events ended by then
	FailedBefore int64   // bad ones ended by then
}

// burnAlert is the Go twin of the burn_rate macro for a live log (rewind
// watch): requests arrive in send order, count when they end (send +
// latency, in integer ns as the SQL rounds them), and every rule is
// evaluated at each moment a window's content changes (or at each step),
// exactly: bad > factor × (1 − slo) × requests, in rationals. A moment is
// decided once no later line can change it: lines come in send order, so
// nothing still to come ends before the latest send seen (the watermark).
type burnAlert struct {
	rules   []burnRule
	step    int64
	partial bool

	started bool
	origin  int64              // ns, the first send
	pending *minHeap[endEvent] // events not yet final, by end
	ends    []int64            // final events' end times (ns from origin), in order
	cumN    []int64            // running sums over ends
	cumBad  []int64            //
	cands   *minHeap[cand]     // moments still to decide, by time then rule
	nextK   int64              // the next step multiple (step mode)
	fired   *BurnFire
}

type burnRule struct {
	name        string
	short, long int64    // ns
	thr         *big.Rat // factor × (1 − slo)
}

type endEvent struct{ end, n, bad int64 }

type cand struct {
	t    int64
	rule int
}

// minHeap is a container/heap of T ordered by less.
type minHeap[T any] struct {
	items []T
	less  func(a, b T) bool
}

func (h *minHeap[T]) Len() int           { return len(h.items) }
func (h *minHeap[T]) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *minHeap[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *minHeap[T]) Push(x any)         { h.items = append(h.items, x.(T)) }
func (h *minHeap[T]) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
func (h *minHeap[T]) peek() T { return h.items[0] }

func newBurnAlert(c BurnConfig) (*burnAlert, error) {
	slo, ok := new(big.Rat).SetString(string(c.SLO))
	if !ok || slo.Sign() <= 0 || slo.Cmp(big.NewRat(1, 1)) >= 0 {
		return nil, fmt.Errorf("burn rate needs an SLO in (0, 1), e.g. 99.9%%")
	}
	budget := new(big.Rat).Sub(big.NewRat(1, 1), slo)
	rules := c.Rules
	if len(rules) == 0 {
		rules = hypothesis.DefaultBurnRules
	}
	a := &burnAlert{step: int64(c.Step), partial: c.Partial, nextK: 1,
		pending: &minHeap[endEvent]{less: func(x, y endEvent) bool { return x.end < y.end }},
		cands:   &minHeap[cand]{less: func(x, y cand) bool { return x.t < y.t || (x.t == y.t && x.rule < y.rule) }}}
	for _, r := range rules {
		f, ok := new(big.Rat).SetString(string(r.Factor))
		if !ok {
			return nil, fmt.Errorf("rule %s: factor %q", r.Name, r.Factor)
		}
		a.rules = append(a.rules, burnRule{name: r.Name, short: int64(r.Short), long: int64(r.Long), thr: f.Mul(f, budget)})
	}
	return a, nil
}

// nsOf rounds ms to integer ns as the SQL does: round(ms * 1e6).
func nsOf(ms float64) int64 { return int64(math.Round(ms * 1e6)) }

// add counts one request: its send time and latency (ms), the requests it
// stands for, and whether it is good (nil: no SLI event, as a NULL good).
// It reports a firing decided by the watermark it moves.
func (a *burnAlert) add(tMs, latencyMs float64, count int64, good *bool) *BurnFire {
	send := nsOf(tMs)
	if !a.started {
		a.started, a.origin = true, send
		if !a.partial && a.step == 0 {
			for i, r := range a.rules {
				heap.Push(a.cands, cand{r.long, i})
			}
		}
	}
	if good != nil {
		bad := int64(0)
		if !*good {
			bad = count
		}
		heap.Push(a.pending, endEvent{end: send + nsOf(latencyMs) - a.origin, n: count, bad: bad})
	} else {
		heap.Push(a.pending, endEvent{end: send + nsOf(latencyMs) - a.origin})
	}
	return a.advance(send-a.origin, false)
}

// end decides every moment left: the log is complete.
func (a *burnAlert) end() *BurnFire {
	if !a.started {
		return a.fired
	}
	return a.advance(math.MaxInt64, true)
}

// advance makes the events that end by the watermark final and decides the
// moments up to it. At the end, moments after the last end (the run's
// duration) are not decided, as in the SQL.
func (a *burnAlert) advance(water int64, final bool) *BurnFire {
	if a.fired != nil {
		return a.fired
	}
	for a.pending.Len() > 0 && (final || a.pending.peek().end <= water) {
		e := heap.Pop(a.pending).(endEvent)
		n, bad := e.n, e.bad
		if k := len(a.ends); k > 0 && a.ends[k-1] == e.end {
			a.cumN[k-1] += n
			a.cumBad[k-1] += bad
		} else {
			pn, pb := int64(0), int64(0)
			if k > 0 {
				pn, pb = a.cumN[k-1], a.cumBad[k-1]
			}
			a.ends, a.cumN, a.cumBad = append(a.ends, e.end), append(a.cumN, pn+n), append(a.cumBad, pb+bad)
			if a.step == 0 {
				for i, r := range a.rules {
					heap.Push(a.cands, cand{e.end, i})
					heap.Push(a.cands, cand{e.end + r.short, i})
					heap.Push(a.cands, cand{e.end + r.long, i})
				}
			}
		}
	}
	// A moment is decided once it is before the watermark: a line still to
	// come may be sent at the watermark and end there (latency 0).
	limit := water - 1
	if final && len(a.ends) > 0 {
		limit = a.ends[len(a.ends)-1] // the run's duration: its last end
	}
	if a.step > 0 {
		for ; a.nextK*a.step <= limit; a.nextK++ {
			for i := range a.rules {
				heap.Push(a.cands, cand{a.nextK * a.step, i})
			}
		}
	}
	for a.cands.Len() > 0 && a.cands.peek().t <= limit {
		c := heap.Pop(a.cands).(cand)
		if f := a.decide(c); f != nil {
			a.fired = f
			return f
		}
	}
	return nil
}

// sumsAt are the running sums over events ended at or before t.
func (a *burnAlert) sumsAt(t int64) (int64, int64) {
	i := sort.Search(len(a.ends), func(i int) bool { return a.ends[i] > t })
	if i == 0 {
		return 0, 0
	}
	return a.cumN[i-1], a.cumBad[i-1]
}

func (a *burnAlert) decide(c cand) *BurnFire {
	r := a.rules[c.rule]
	if !a.partial && c.t < r.long {
		return nil
	}
	nt, bt := a.sumsAt(c.t)
	ns, bs := a.sumsAt(c.t - r.short)
	nl, bl := a.sumsAt(c.t - r.long)
	if !burns(bt-bs, nt-ns, r.thr) || !burns(bt-bl, nt-nl, r.thr) {
		return nil
	}
	// Several rules may fire at one moment: the first in rule order.
	return &BurnFire{Rule: r.name, AtMs: float64(c.t) / 1e6, Requests: nt, FailedBefore: bt}
}

// burns reports bad > thr × n exactly.
func burns(bad, n int64, thr *big.Rat) bool {
	lhs := new(big.Rat).SetInt64(bad)
	rhs := new(big.Rat).Mul(thr, new(big.Rat).SetInt64(n))
	return lhs.Cmp(rhs) > 0
}

// firstFire is the earliest firing among a run's rules, from the SQL's
// rows (rule order breaks ties, as in the Go twin).
func firstFire(fires []BurnFire) *BurnFire {
	var out *BurnFire
	for i := range fires {
		if f := &fires[i]; out == nil || f.AtMs < out.AtMs {
			out = f
		}
	}
	return out
}
