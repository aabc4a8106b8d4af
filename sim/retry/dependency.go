package retry

import (
	"slices"
	"time"
)

// dependency is the synthetic service of E03-B: a worker pool with a bounded
// FIFO queue that rejects with 503 when full.
type dependency struct {
	busy      int
	inService []int // attempt ids being served
	queue     []int // attempt ids waiting, oldest first
	held      []int // attempt ids pending while frozen
	frozen    bool
	// epoch changes at each freeze so that completions scheduled before it
	// are recognised as stale and dropped.
	epoch    int
	maxQueue int
}

// arrive takes attempt id into the dependency. While frozen it holds every
// arrival without a limit: a frozen server reads nothing, so it cannot reject
// either; this is why immediate retries do not storm during the freeze.
func (s *sim) arrive(id int) {
	d := &s.dep
	switch {
	case d.frozen:
		d.held = append(d.held, id)
	case d.busy < s.cfg.Workers:
		s.startService(id)
	case len(d.queue) < s.cfg.Queue:
		d.queue = append(d.queue, id)
		d.maxQueue = max(d.maxQueue, len(d.queue))
	default:
		s.answer(id, 503)
	}
}

func (s *sim) startService(id int) {
	s.dep.busy++
	s.dep.inService = append(s.dep.inService, id)
	s.clk.after(s.serviceTime(), evServiceDone, id, s.dep.epoch)
}

// serviceTime is per request; after the freeze the dependency is slower
// rather than smaller, so the same workers serve at DegradedRPS.
func (s *sim) serviceTime() time.Duration {
	now := s.clk.now
	if now >= s.cfg.FreezeTo && now < s.cfg.DegradedTo {
		return time.Duration(float64(s.cfg.Workers) / s.cfg.DegradedRPS * float64(time.Second))
	}
	return s.cfg.Service
}

// serviceDone answers id with 200 and pulls the next waiting request. The
// dependency does not know whether the client is still waiting, so requests
// whose client timed out still take a worker.
func (s *sim) serviceDone(id, epoch int) {
	d := &s.dep
	if epoch != d.epoch {
		return
	}
	d.busy--
	d.inService = slices.DeleteFunc(d.inService, func(x int) bool { return x == id })
	s.answer(id, 200)
	if len(d.queue) > 0 {
		next := d.queue[0]
		d.queue = d.queue[1:]
		s.startService(next)
	}
}

// freeze stops the dependency; whatever it was serving or queueing is pending.
func (s *sim) freeze() {
	d := &s.dep
	d.frozen = true
	d.epoch++
	d.held = append(append(d.held, d.inService...), d.queue...)
	d.inService, d.queue, d.busy = nil, nil, 0
}

// thaw answers every pending request with 503 at once, the synchronised
// failure that the strategies then retry.
func (s *sim) thaw() {
	d := &s.dep
	d.frozen = false
	for _, id := range d.held {
		s.answer(id, 503)
	}
	d.held = nil
}

func (s *sim) answer(id, status int) { s.clk.after(s.cfg.RTT, evAnswer, id, status) }
