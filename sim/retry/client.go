package retry

import (
	"math/rand/v2"
	"time"
)

// Outcomes of an attempt, as written to the log.
const (
	OutcomeOK      = "ok"
	OutcomeError   = "error"
	OutcomeTimeout = "timeout"
)

// Reasons a failed attempt was not retried, as written to the log.
const (
	DropAttempts = "attempts"
	DropDeadline = "deadline"
	DropBudget   = "budget"
)

// startOp begins a logical operation for client c, unless the run is over.
func (s *sim) startOp(c int) {
	if s.clk.now >= s.cfg.Duration {
		return
	}
	op := Op{ID: int64(len(s.ops)), Client: c, Start: s.clk.now, Deadline: s.clk.now + s.cfg.OpTimeout}
	s.ops = append(s.ops, op)
	s.send(int(op.ID), 0)
}

// send issues attempt n of operation o. The attempt's timeout never reaches
// past the operation's deadline.
func (s *sim) send(o, n int) {
	op := &s.ops[o]
	id := len(s.attempts)
	s.attempts = append(s.attempts, Attempt{Client: op.Client, Op: op.ID, N: n, Sent: s.clk.now})
	op.Attempts++
	if n == 0 {
		s.pol.first(s.clk.now)
	}
	s.clk.after(min(s.cfg.AttemptTimeout, op.Deadline-s.clk.now), evTimeout, id, 0)
	s.arrive(id)
}

// onAnswer handles an answer; one that comes after the client gave up is lost.
func (s *sim) onAnswer(id, status int) {
	a := &s.attempts[id]
	if a.done {
		return
	}
	a.done, a.Latency, a.Status = true, s.clk.now-a.Sent, status
	if status == 200 {
		a.Outcome = OutcomeOK
		s.endOp(int(a.Op), true)
		return
	}
	a.Outcome = OutcomeError
	s.afterFailure(id)
}

func (s *sim) onTimeout(id int) {
	a := &s.attempts[id]
	if a.done {
		return
	}
	a.done, a.Latency, a.Outcome = true, s.clk.now-a.Sent, OutcomeTimeout
	s.afterFailure(id)
}

// afterFailure retries the failed attempt id or ends its operation.
func (s *sim) afterFailure(id int) {
	a := &s.attempts[id]
	delay, drop := s.pol.decide(s.clk.now, s.ops[a.Op].Deadline, a.N+1)
	if drop != "" {
		a.Drop = drop
		s.endOp(int(a.Op), false)
		return
	}
	a.Retried = true
	s.clk.after(delay, evSend, int(a.Op), a.N+1)
}

// policy is one strategy's retry decisions: backoff, jitter and budget. The
// virtual and the real mode share it, so they retry by the same rules; it is
// not safe for concurrent use.
type policy struct {
	cfg    Config
	strat  Strategy
	jitter *rand.Rand
	budget *budget // nil unless the strategy has one
}

func newPolicy(cfg Config, st Strategy) *policy {
	p := &policy{cfg: cfg, strat: st, jitter: rand.New(rand.NewPCG(cfg.Seed, 1<<32))}
	if st.Budget {
		p.budget = newBudget(cfg.BudgetRatio, cfg.BudgetWindow)
	}
	return p
}

// first counts a first attempt sent at now, for the budget.
func (p *policy) first(now time.Duration) {
	if p.budget != nil {
		p.budget.first(now)
	}
}

// decide returns, for an operation with the given deadline whose attempt
// failed at now, the wait before attempt next, or why there is none. The
// budget is asked last, so it is only spent on retries that would happen.
func (p *policy) decide(now, deadline time.Duration, next int) (time.Duration, string) {
	delay := p.backoff(next)
	switch {
	case next >= p.cfg.MaxAttempts:
		return 0, DropAttempts
	case now+delay >= deadline:
		return 0, DropDeadline
	case p.budget != nil && !p.budget.allow(now):
		return 0, DropBudget
	}
	return delay, ""
}

// backoff is the wait before retry n (n >= 1). Jitter is drawn in whole
// microseconds so that log times stay short decimals.
func (p *policy) backoff(n int) time.Duration {
	if !p.strat.Backoff {
		return 0
	}
	d := p.cfg.Cap
	if n-1 < 30 {
		d = min(p.cfg.Base<<(n-1), p.cfg.Cap)
	}
	if !p.strat.Jitter {
		return d
	}
	us := p.jitter.Int64N(int64(d/time.Microsecond) + 1)
	return time.Duration(us) * time.Microsecond
}

// endOp closes operation o and schedules its client's next one.
func (s *sim) endOp(o int, ok bool) {
	op := &s.ops[o]
	op.End, op.OK = s.clk.now, ok
	s.clk.after(s.think(op.Client), evStartOp, op.Client, 0)
}

// think is drawn from the client's own stream, so every strategy sees the
// same think times and differs only in how it retries.
func (s *sim) think(c int) time.Duration { return s.cfg.think(s.clients[c]) }

func (c Config) think(r *rand.Rand) time.Duration {
	span := int64((c.ThinkMax - c.ThinkMin) / time.Microsecond)
	return c.ThinkMin + time.Duration(r.Int64N(span+1))*time.Microsecond
}

// stagger is when a client starts its first operation: uniformly over one
// longest think time, so a run starts in steady state.
func (c Config) stagger(r *rand.Rand) time.Duration {
	return time.Duration(r.Int64N(int64(c.ThinkMax/time.Microsecond)+1)) * time.Microsecond
}

// budget rations retries across all clients, as a shared client library or
// sidecar would: a retry is allowed while the retries decided in the last
// window stay within ratio of the first attempts sent in it. Retries count
// when decided, not when sent, so that a burst of simultaneous failures
// cannot all pass before any of them is counted.
type budget struct {
	ratio   float64
	window  time.Duration
	firsts  []time.Duration
	retries []time.Duration
}

func newBudget(ratio float64, window time.Duration) *budget {
	return &budget{ratio: ratio, window: window}
}

func (b *budget) first(now time.Duration) { b.firsts = append(b.firsts, now) }

func (b *budget) allow(now time.Duration) bool {
	b.firsts = prune(b.firsts, now-b.window)
	b.retries = prune(b.retries, now-b.window)
	if float64(len(b.retries)+1) > b.ratio*float64(len(b.firsts)) {
		return false
	}
	b.retries = append(b.retries, now)
	return true
}

// prune drops the times at or before cutoff; ts is in ascending order.
func prune(ts []time.Duration, cutoff time.Duration) []time.Duration {
	i := 0
	for i < len(ts) && ts[i] <= cutoff {
		i++
	}
	return ts[i:]
}
