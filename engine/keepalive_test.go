package engine

import (
	"context"
	"os"
	"testing"
	"time"
)

// A session held open past the server's idle timeout still answers, and
// one whose calls are turned off does not: .ci/spark's Connect server
// closes a session idle for 2 minutes (checked every 10 s). Both sessions
// open, the test waits the timeout and a half, then each runs a step.
// Without keepAlive the held session fails as the other does (the step
// that measured it: peaks --sliding at 100 M rows).
func TestSessionOutlivesIdleTimeout(t *testing.T) {
	url := sparkURL(t)
	t.Parallel() // it mostly waits
	ctx := context.Background()
	held, err := OpenSpark(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	idle, err := openSpark(ctx, url, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	v, err := held.session.Config().Get(ctx, "spark.connect.session.manager.defaultSessionTimeout")
	if err != nil {
		t.Fatal(err)
	}
	timeout, err := time.ParseDuration(v)
	if err != nil || timeout > 3*time.Minute {
		if os.Getenv("CI") != "" {
			t.Fatalf("the cluster's session timeout is %q, want at most 3m (.ci/spark sets 2m)", v)
		}
		t.Skipf("the cluster's session timeout is %q: this test waits it out only up to 3m", v)
	}
	time.Sleep(timeout + timeout/2)
	if tab, err := held.Reduce(ctx, "SELECT 1 AS x"); err != nil {
		t.Errorf("a session held open for %s (the server's timeout %s): %v", timeout+timeout/2, timeout, err)
	} else if tab != nil {
		tab.Release()
	}
	if tab, err := idle.Reduce(ctx, "SELECT 1 AS x"); err == nil {
		t.Errorf("a session without keepAlive's calls still answered after %s: the server's timeout did not close it, so this test shows nothing", timeout+timeout/2)
		if tab != nil {
			tab.Release()
		}
	}
}
