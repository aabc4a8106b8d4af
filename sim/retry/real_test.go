package retry

import (
	"bytes"
	"context"
	"net/http"
	"runtime"
	"testing"
	"time"
)

// realScale runs the real-mode tests ten times faster than the seed.
const realScale = 10

// realSlack is the wall time a loaded machine may add to a timeout before a
// goroutine sees it; it is multiplied by the scale, since logged times are
// on the seed's scale.
const realSlack = 100 * time.Millisecond

// shortReal is E03-B cut down to 20 clients and 7 s (0.7 s of wall time per
// strategy at realScale). Its freeze, 2.5 s, outlasts the attempt timeout,
// so it brings timeouts as well as the thaw's 503s.
func shortReal() Config {
	cfg := DefaultConfig()
	cfg.Clients = 20
	cfg.Duration = 7 * time.Second
	cfg.FreezeFrom, cfg.FreezeTo = 2500*time.Millisecond, 5*time.Second
	cfg.DegradedTo = 6 * time.Second
	cfg.AffectedFrom, cfg.AffectedTo = 2500*time.Millisecond, 6*time.Second
	return cfg
}

// TestReal runs all four strategies once against the loopback dependency and
// checks what no timing can change: the invariants of the virtual mode (with
// slack on the timeouts), what the freeze does, and A retrying more than D.
// It asserts nothing about exact counts, which depend on the machine.
func TestReal(t *testing.T) {
	if testing.Short() {
		t.Skip("real mode takes seconds of wall time")
	}
	cfg := shortReal()
	before := runtime.NumGoroutine()
	results, err := RunReal(context.Background(), cfg, Strategies(), realScale)
	if err != nil {
		t.Fatal(err)
	}
	loose := cfg
	loose.AttemptTimeout += realScale * realSlack
	loose.OpTimeout += realScale * realSlack
	retries := map[string]int{}
	for _, r := range results {
		t.Run(r.Strategy.Name, func(t *testing.T) {
			checkAttempts(t, loose, r)
			checkOps(t, loose, r)
			checkStatuses(t, r)
			checkFreeze(t, cfg, r)
			if r.MaxQueue > cfg.Queue {
				t.Errorf("queue reached %d, limit %d", r.MaxQueue, cfg.Queue)
			}
		})
		retries[r.Strategy.Name] = Summarize(cfg, r).Retries
	}
	if retries["A"] <= retries["D"] {
		t.Errorf("A sent %d retries, D %d: want A more", retries["A"], retries["D"])
	}
	checkNoLeak(t, before)
}

func checkStatuses(t *testing.T, r Result) {
	t.Helper()
	for i, a := range r.Attempts {
		if a.Status != 0 && a.Status != http.StatusOK && a.Status != http.StatusServiceUnavailable {
			t.Fatalf("attempt %d: status %d", i, a.Status)
		}
	}
}

// checkFreeze wants both kinds of failure from attempts sent in the freeze:
// the first ones time out, the later ones get the thaw's 503.
func checkFreeze(t *testing.T, cfg Config, r Result) {
	t.Helper()
	seen := map[string]int{}
	for _, a := range r.Attempts {
		if a.Sent >= cfg.FreezeFrom && a.Sent < cfg.FreezeTo {
			seen[a.Outcome]++
		}
	}
	if seen[OutcomeTimeout] == 0 || seen[OutcomeError] == 0 {
		t.Errorf("attempts sent in the freeze: %v, want timeouts and errors", seen)
	}
}

// checkNoLeak waits for the goroutines of the run (connections, timers) to
// end; a generous wait, since it tests for an end, not for a time.
func checkNoLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after the run, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// TestRealLogParams checks that a real log says so and drops the virtual
// network delay; the rest of its format is WriteLog's.
func TestRealLogParams(t *testing.T) {
	var real, virt bytes.Buffer
	cfg := tiny()
	if err := WriteRealLog(&real, cfg, 5, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteLog(&virt, cfg, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"clock":"real"`, `"time_scale":5`} {
		if !bytes.Contains(real.Bytes(), []byte(want)) {
			t.Errorf("real log lacks %s: %s", want, real.Bytes())
		}
	}
	if bytes.Contains(real.Bytes(), []byte(`"rtt_ms"`)) || !bytes.Contains(virt.Bytes(), []byte(`"rtt_ms"`)) {
		t.Errorf("rtt_ms should be in the virtual log only:\n%s%s", real.Bytes(), virt.Bytes())
	}
}

func TestRealRejectsBadScale(t *testing.T) {
	for _, scale := range []float64{0, -1} {
		if _, err := RunReal(context.Background(), tiny(), Strategies(), scale); err == nil {
			t.Errorf("scale %v: no error", scale)
		}
	}
}
