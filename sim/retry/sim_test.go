package retry

import (
	"bytes"
	"testing"
	"time"
)

func logBytes(t *testing.T, cfg Config) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteLog(&buf, cfg, Run(cfg, Strategies())); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDeterministic(t *testing.T) {
	cfg := DefaultConfig()
	a, b := logBytes(t, cfg), logBytes(t, cfg)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed gave different logs")
	}
	cfg.Seed++
	if bytes.Equal(a, logBytes(t, cfg)) {
		t.Fatal("different seeds gave the same log")
	}
}

// longFreeze outlasts the attempt timeout, so timeouts, deadline drops and
// answers to clients that gave up all occur.
func longFreeze() Config {
	cfg := DefaultConfig()
	cfg.FreezeTo = 13 * time.Second
	return cfg
}

func TestInvariants(t *testing.T) {
	for name, cfg := range map[string]Config{"default": DefaultConfig(), "long-freeze": longFreeze()} {
		for _, r := range Run(cfg, Strategies()) {
			t.Run(name+"/"+r.Strategy.Name, func(t *testing.T) {
				checkAttempts(t, cfg, r)
				checkOps(t, cfg, r)
				if r.MaxQueue > cfg.Queue {
					t.Errorf("queue reached %d, limit %d", r.MaxQueue, cfg.Queue)
				}
			})
		}
	}
}

func checkAttempts(t *testing.T, cfg Config, r Result) {
	t.Helper()
	for i, a := range r.Attempts {
		failed := a.Outcome != OutcomeOK
		switch {
		case a.N < 0 || a.N >= cfg.MaxAttempts:
			t.Fatalf("attempt %d: number %d", i, a.N)
		case a.Latency < 0 || a.Latency > cfg.AttemptTimeout:
			t.Fatalf("attempt %d: latency %v", i, a.Latency)
		case (a.Drop != "") != (failed && !a.Retried):
			t.Fatalf("attempt %d: outcome %s retried %v drop %q", i, a.Outcome, a.Retried, a.Drop)
		case a.Retried && !failed:
			t.Fatalf("attempt %d: retried a success", i)
		case (a.Outcome == OutcomeTimeout) != (a.Status == 0):
			t.Fatalf("attempt %d: outcome %s status %d", i, a.Outcome, a.Status)
		}
	}
}

// checkOps also checks that each operation's attempts are numbered 0..n-1 in
// send order and that it succeeded exactly when its last attempt did.
func checkOps(t *testing.T, cfg Config, r Result) {
	t.Helper()
	next := make([]int, len(r.Ops))
	last := make([]Attempt, len(r.Ops))
	for _, a := range r.Attempts {
		if a.N != next[a.Op] {
			t.Fatalf("op %d: attempt %d after %d", a.Op, a.N, next[a.Op]-1)
		}
		next[a.Op]++
		last[a.Op] = a
	}
	for i, op := range r.Ops {
		if d := op.End - op.Start; d < 0 || d > cfg.OpTimeout {
			t.Fatalf("op %d: lasted %v", i, d)
		}
		if op.OK != (last[i].Outcome == OutcomeOK) || op.Attempts != next[i] {
			t.Fatalf("op %d: ok %v, last attempt %+v", i, op.OK, last[i])
		}
	}
}

// TestLongFreezeExercisesEveryPath guards the invariant test against passing
// vacuously.
func TestLongFreezeExercisesEveryPath(t *testing.T) {
	cfg := longFreeze()
	seen := map[string]bool{}
	for _, r := range Run(cfg, Strategies()) {
		for _, a := range r.Attempts {
			seen[a.Outcome] = true
			seen[a.Drop] = true
		}
	}
	for _, k := range []string{OutcomeOK, OutcomeError, OutcomeTimeout, DropAttempts, DropDeadline, DropBudget} {
		if !seen[k] {
			t.Errorf("no attempt with %q", k)
		}
	}
}

func TestBudget(t *testing.T) {
	b := newBudget(0.1, time.Second)
	for i := range 25 {
		b.first(time.Duration(i) * 10 * time.Millisecond)
	}
	now := 250 * time.Millisecond
	if !b.allow(now) || !b.allow(now) || b.allow(now) {
		t.Fatal("25 first attempts should allow exactly 2 retries")
	}
	if b.allow(2 * time.Second) {
		t.Fatal("an empty window should allow nothing")
	}
}
