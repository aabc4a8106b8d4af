package chaos

import (
	"context"
	"sync"
	"testing"
)

// TestProgressCountsBothRuns checks the Progress hook: one call per batch of
// each run, the total covering both runs, and the last done equal to it.
func TestProgressCountsBothRuns(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Requests, cfg.Start, cfg.Window = 40, 20, 10
	var mu sync.Mutex
	calls, maxDone, total := 0, 0, 0
	cfg.Progress = func(done, tot int) {
		mu.Lock()
		defer mu.Unlock()
		calls, maxDone, total = calls+1, max(maxDone, done), tot
	}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	want := 2 * cfg.batches()
	if calls != want || maxDone != want || total != want {
		t.Errorf("progress: %d calls, last done %d of %d; want %d, %d of %d", calls, maxDone, total, want, want, want)
	}
}
