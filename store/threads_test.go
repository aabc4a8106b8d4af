package store

import (
	"context"
	"strings"
	"testing"
)

// TestThreadsEnv: REWIND_THREADS reaches DuckDB on read-only, writable and
// in-memory opens, and a value that is no thread count refuses the open.
func TestThreadsEnv(t *testing.T) {
	path := chaosFile(t, nil)
	threads := func(db *DB) int64 {
		var n int64
		if err := db.QueryRow(`SELECT current_setting('threads')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	t.Setenv(ThreadsEnv, "1")
	ro := readOnly(t, path, Options{})
	if got := threads(ro); got != 1 {
		t.Errorf("read-only open with %s=1: DuckDB has %d threads", ThreadsEnv, got)
	}
	ro.Close() // opens of one file share an instance: close before the next
	t.Setenv(ThreadsEnv, "3")
	wr, err := Open(context.Background(), path, Options{Mode: Write})
	if err != nil {
		t.Fatal(err)
	}
	if got := threads(wr); got != 3 {
		t.Errorf("writable open with %s=3: DuckDB has %d threads", ThreadsEnv, got)
	}
	wr.Close()
	mem, err := Open(context.Background(), "", Options{Mode: Memory})
	if err != nil {
		t.Fatal(err)
	}
	if got := threads(mem); got != 3 {
		t.Errorf("in-memory open with %s=3: DuckDB has %d threads", ThreadsEnv, got)
	}
	mem.Close()
	for _, bad := range []string{"0", "-1", "two", "1; SET x = 1", "1.5", "100000"} {
		t.Setenv(ThreadsEnv, bad)
		if db, err := Open(context.Background(), path, Options{}); err == nil {
			db.Close()
			t.Errorf("%s=%q: the open went through", ThreadsEnv, bad)
		} else if !strings.Contains(err.Error(), ThreadsEnv) {
			t.Errorf("%s=%q: the error does not name the variable: %v", ThreadsEnv, bad, err)
		}
	}
}
