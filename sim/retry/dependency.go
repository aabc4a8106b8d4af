package retry

import (
	"slices"
	"time"
)

// depModel is the dependency of E03-B as bookkeeping, shared by the virtual
// mode (dependency) and the real one (liveDep), which differ only in how
// they time a service and send an answer: a worker pool with a bounded FIFO
// queue that rejects with 503 when full. T is what a mode knows a request
// by (an attempt id, a job).
type depModel[T comparable] struct {
	busy      int
	inService []T // being served
	queue     []T // waiting, oldest first
	held      []T // pending while frozen
	frozen    bool
	// epoch changes at each freeze so that completions scheduled before it
	// are recognised as stale and dropped.
	epoch    int
	maxQueue int
}

// dependency is the virtual mode's, requests known by attempt id.
type dependency = depModel[int]

// arrive takes x into the dependency and tells whether to start its service
// now (serve) or to answer 503 (reject); otherwise it waits. While frozen it
// holds every arrival without a limit: a frozen server reads nothing, so it
// cannot reject either; this is why immediate retries do not storm during
// the freeze.
func (d *depModel[T]) arrive(x T, cfg Config) (serve, reject bool) {
	switch {
	case d.frozen:
		d.held = append(d.held, x)
	case d.busy < cfg.Workers:
		d.start(x)
		return true, false
	case len(d.queue) < cfg.Queue:
		d.queue = append(d.queue, x)
		d.maxQueue = max(d.maxQueue, len(d.queue))
	default:
		return false, true
	}
	return false, false
}

// start gives x a worker; the caller times its service.
func (d *depModel[T]) start(x T) {
	d.busy++
	d.inService = append(d.inService, x)
}

// done frees x's worker and gives it to the next waiting request, if any,
// whose service the caller times. The dependency does not know whether the
// client is still waiting, so requests whose client timed out still take a
// worker.
func (d *depModel[T]) done(x T) (next T, ok bool) {
	d.busy--
	d.inService = slices.DeleteFunc(d.inService, func(y T) bool { return y == x })
	if len(d.queue) == 0 {
		return next, false
	}
	next = d.queue[0]
	d.queue = d.queue[1:]
	d.start(next)
	return next, true
}

// freeze stops the dependency; whatever it was serving or queueing is
// pending. It returns what was in service, whose timers the caller stops.
func (d *depModel[T]) freeze() []T {
	served := d.inService
	d.frozen = true
	d.epoch++
	d.held = append(append(d.held, d.inService...), d.queue...)
	d.inService, d.queue, d.busy = nil, nil, 0
	return served
}

// thaw returns every pending request, for the caller to answer with 503
// at once: the synchronised failure that the strategies then retry.
func (d *depModel[T]) thaw() []T {
	held := d.held
	d.frozen, d.held = false, nil
	return held
}

// serviceTime is per request; after the freeze the dependency is slower
// rather than smaller, so the same workers serve at DegradedRPS.
func (c Config) serviceTime(now time.Duration) time.Duration {
	if now >= c.FreezeTo && now < c.DegradedTo {
		return time.Duration(float64(c.Workers) / c.DegradedRPS * float64(time.Second))
	}
	return c.Service
}

func (s *sim) arrive(id int) {
	switch serve, reject := s.dep.arrive(id, s.cfg); {
	case serve:
		s.timeService(id)
	case reject:
		s.answer(id, 503)
	}
}

// timeService schedules the end of id's service, which has a worker.
func (s *sim) timeService(id int) {
	s.clk.after(s.cfg.serviceTime(s.clk.now), evServiceDone, id, s.dep.epoch)
}

// serviceDone answers id with 200 and starts the next waiting request.
func (s *sim) serviceDone(id, epoch int) {
	if epoch != s.dep.epoch {
		return
	}
	next, ok := s.dep.done(id)
	s.answer(id, 200)
	if ok {
		s.timeService(next)
	}
}

func (s *sim) thaw() {
	for _, id := range s.dep.thaw() {
		s.answer(id, 503)
	}
}

func (s *sim) answer(id, status int) { s.clk.after(s.cfg.RTT, evAnswer, id, status) }
