package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/rewind-dev/rewind/internal/loopback"
)

// loop is client c's closed loop: the virtual mode's stagger and think times,
// from the same stream, so each client's plan is the same in both modes.
func (r *liveRun) loop(ctx context.Context, c int) error {
	rng := clientRand(r.cfg, c)
	if !loopback.Sleep(ctx, r.clk.until(r.cfg.stagger(rng))) {
		return ctx.Err()
	}
	for r.clk.now() < r.cfg.Duration {
		if err := r.operation(ctx, c); err != nil {
			return err
		}
		if !loopback.Sleep(ctx, r.clk.wall(r.cfg.think(rng))) {
			return ctx.Err()
		}
	}
	return nil
}

// operation sends attempts until one succeeds or the policy stops it.
func (r *liveRun) operation(ctx context.Context, c int) error {
	o, deadline := r.startOp(c)
	octx, cancel := context.WithDeadline(ctx, r.clk.start.Add(r.clk.wall(deadline)))
	defer cancel()
	for n := 0; ; n++ {
		id := r.send(o, n)
		status, err := r.get(octx)
		if err != nil && ctx.Err() == nil && !isTimeout(err) {
			return fmt.Errorf("client %d: %w", c, err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		delay, ok := r.finish(id, status)
		if !ok {
			return nil
		}
		if !loopback.Sleep(ctx, r.clk.wall(delay)) {
			return ctx.Err()
		}
	}
}

// startOp records a new operation of client c and returns its index and
// deadline.
func (r *liveRun) startOp(c int) (int, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clk.now()
	o := len(r.ops)
	r.ops = append(r.ops, Op{ID: int64(o), Client: c, Start: now, Deadline: now + r.cfg.OpTimeout})
	return o, now + r.cfg.OpTimeout
}

// send records attempt n of operation o. Times are read under mu, so the
// attempts are in send order and the budget sees times in order.
func (r *liveRun) send(o, n int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clk.now()
	op := &r.ops[o]
	op.Attempts++
	if n == 0 {
		r.pol.first(now)
	}
	r.attempts = append(r.attempts, Attempt{Client: op.Client, Op: op.ID, N: n, Sent: now})
	return len(r.attempts) - 1
}

// finish records attempt id's answer (status 0: it timed out) and returns
// the wait before the next attempt, or ok false when the operation is over.
func (r *liveRun) finish(id, status int) (delay time.Duration, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clk.now()
	a := &r.attempts[id]
	op := &r.ops[a.Op]
	a.Latency, a.Status, a.Outcome = now-a.Sent, status, outcome(status)
	if status == http.StatusOK {
		op.End, op.OK = now, true
		return 0, false
	}
	delay, a.Drop = r.pol.decide(now, op.Deadline, a.N+1)
	if a.Drop != "" {
		op.End = now
		return 0, false
	}
	a.Retried = true
	return delay, true
}

func outcome(status int) string {
	switch status {
	case 0:
		return OutcomeTimeout
	case http.StatusOK:
		return OutcomeOK
	}
	return OutcomeError
}

// get sends one attempt and returns its status, 0 with the error when there
// was no answer.
func (r *liveRun) get(ctx context.Context) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	// Draining the (empty) body lets the connection be reused.
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}

// isTimeout tells the attempt timeout and the operation deadline from other
// failures, which on the loopback mean the run itself is broken.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
