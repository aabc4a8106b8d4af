package retry

import "time"

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
	if n == 0 && s.budget != nil {
		s.budget.first(s.clk.now)
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

// afterFailure retries the failed attempt id or ends its operation. The
// budget is asked last, so it is only spent on retries that would happen.
func (s *sim) afterFailure(id int) {
	a := &s.attempts[id]
	op := &s.ops[a.Op]
	next := a.N + 1
	delay := s.backoff(next)
	switch {
	case next >= s.cfg.MaxAttempts:
		a.Drop = DropAttempts
	case s.clk.now+delay >= op.Deadline:
		a.Drop = DropDeadline
	case s.budget != nil && !s.budget.allow(s.clk.now):
		a.Drop = DropBudget
	default:
		a.Retried = true
		s.clk.after(delay, evSend, int(a.Op), next)
		return
	}
	s.endOp(int(a.Op), false)
}

// backoff is the wait before retry n (n >= 1). Jitter is drawn in whole
// microseconds so that log times stay short decimals.
func (s *sim) backoff(n int) time.Duration {
	if !s.strat.Backoff {
		return 0
	}
	d := s.cfg.Cap
	if n-1 < 30 {
		d = min(s.cfg.Base<<(n-1), s.cfg.Cap)
	}
	if !s.strat.Jitter {
		return d
	}
	us := s.jitter.Int64N(int64(d/time.Microsecond) + 1)
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
func (s *sim) think(c int) time.Duration {
	span := int64((s.cfg.ThinkMax - s.cfg.ThinkMin) / time.Microsecond)
	return s.cfg.ThinkMin + time.Duration(s.clients[c].Int64N(span+1))*time.Microsecond
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
