package storm

import (
	"math"
)

// lehmerModulus is the Mersenne prime 2^31−1 of the Park–Miller generator.
const lehmerModulus = 2147483647

// Lehmer is the Park–Miller minimal standard generator (×48271 mod 2^31−1),
// the seed's only source of randomness. Every draw of the model goes through
// one Lehmer, so the order of calls to it is part of the model.
type Lehmer struct{ state int64 }

// NewLehmer returns a generator started from seed.
func NewLehmer(seed int64) *Lehmer {
	return &Lehmer{state: seed % lehmerModulus}
}

// Float advances the generator and returns the new state divided by the
// modulus, a number in (0, 1).
func (g *Lehmer) Float() float64 {
	g.state = g.state * 48271 % lehmerModulus
	return float64(g.state) / lehmerModulus
}

// Poisson draws a Poisson count with mean lambda by multiplying uniforms
// until the product falls to e^−lambda (Knuth). The number of uniforms it
// consumes depends on the outcome, which is why it must stay this algorithm.
func (g *Lehmer) Poisson(lambda float64) int {
	limit := math.Exp(-lambda)
	k, p := 0, 1.0
	for {
		k++
		p *= g.Float()
		if p <= limit {
			return k - 1
		}
	}
}

// attempt is a call waiting in the schedule.
type attempt struct {
	req int64
	n   int // 0 for the first call
}

// sim is the state of one run.
type sim struct {
	p        Params
	sc       Scenario
	pol      Policy
	allowed  int
	rng      *Lehmer
	schedule [][]attempt // calls per tick
	res      Result
	emit     func(Call) error
}

// Simulate runs one policy through one scenario. emit, when not nil, sees
// every call in the order the model serves them; its error stops the run.
func Simulate(p Params, sc Scenario, pol Policy, emit func(Call) error) (Result, error) {
	s := &sim{p: p, sc: sc, pol: pol, allowed: pol.Allowed(), rng: NewLehmer(p.Seed),
		schedule: make([][]attempt, p.Ticks), emit: emit}
	s.res.Allowed = s.allowed
	s.res.WindowTicks = sc.Window
	lambda := p.NormalRate()
	for t := range p.Ticks {
		if err := s.tick(t, lambda); err != nil {
			return s.res, err
		}
	}
	return s.res, nil
}

func (s *sim) inWindow(t int) bool {
	return s.sc.Window > 0 && t >= s.p.FaultStart && t < s.p.FaultStart+s.sc.Window
}

// tick draws the tick's arrivals, then serves its calls: retries scheduled
// earlier come first, new requests after them.
func (s *sim) tick(t int, lambda float64) error {
	capacity := s.p.Capacity
	if s.inWindow(t) {
		capacity = s.sc.Capacity
	}
	for n := s.rng.Poisson(lambda); n > 0; n-- {
		s.add(t, attempt{req: int64(s.res.Requests)})
		s.res.Requests++
	}
	calls := s.schedule[t]
	s.schedule[t] = nil
	s.res.Calls += len(calls)
	s.res.Peak = max(s.res.Peak, len(calls))
	if s.inWindow(t) {
		s.res.WindowCalls += len(calls)
	}
	for i, a := range calls {
		if err := s.serve(t, i < capacity, a); err != nil {
			return err
		}
	}
	return nil
}

// add schedules a call; calls past the end of the run are never served.
func (s *sim) add(t int, a attempt) {
	if t >= len(s.schedule) {
		s.res.Pending++
		return
	}
	s.schedule[t] = append(s.schedule[t], a)
}

// serve decides one call. The random draws happen in the seed's order: the
// sparse-failure draw only for a call within capacity on the fault-free day,
// the jitter draw only for a call that is retried.
func (s *sim) serve(t int, withinCapacity bool, a attempt) error {
	if a.n == 0 {
		s.res.Primary++
	} else {
		s.res.Extra++
	}
	if withinCapacity && (!s.sc.faultFree() || s.rng.Float() >= s.p.SparseFailure) {
		s.res.Succeeded++
		return s.record(a, t, true, false)
	}
	if a.n+1 >= s.allowed || !s.withinBudget() {
		s.res.Dropped++
		return s.record(a, t, false, false)
	}
	s.add(t+s.p.Backoff.Delay(a.n, s.rng.Float()), attempt{req: a.req, n: a.n + 1})
	return s.record(a, t, false, true)
}

// withinBudget reports whether the retries served so far (this call included
// when it is one) stay within the budget's share of the primary calls.
func (s *sim) withinBudget() bool {
	if s.pol.Budget == nil {
		return true
	}
	return float64(s.res.Extra) <= *s.pol.Budget*float64(s.res.Primary)
}

func (s *sim) record(a attempt, t int, ok, retried bool) error {
	if s.emit == nil {
		return nil
	}
	return s.emit(Call{Req: a.req, Attempt: a.n, Tick: t, OK: ok, Retried: retried})
}
