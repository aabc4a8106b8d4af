package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer that a running command writes while the
// test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Windows of 2 rows against baseline 1, margin 0: a window with a row not ok
// falsifies and stops. The old log is 4 ok rows; what replaces it fails.
var (
	okLog   = strings.Repeat(`{"run":"live","req":1000000,"outcome":"ok","latency_ms":12.5}`+"\n", 4)
	failLog = strings.Repeat(`{"run":"live","outcome":"error","tagged":true}`+"\n", 2)
)

// watchRotated starts rewind watch on a log of ok rows, waits for its two
// windows, calls rotate, and returns the exit code and stderr. Before the
// fix, watch kept reading the old file or offset and exited 0, stop: never.
func watchRotated(t *testing.T, rotate func(path string, stderr func() string)) (int, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "live.ndjson")
	if err := os.WriteFile(path, []byte(okLog), 0o644); err != nil {
		t.Fatal(err)
	}
	// The deadline turns a watch that misses the new file into a failure,
	// not a hung test; no verdict depends on timing.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr lockedBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"watch", path, "--baseline-share", "1", "--margin", "0", "--window", "2",
			"--idle-timeout", "50s"}, nil, &stdout, &stderr)
	}()
	for strings.Count(stdout.String(), "\n") < 3 { // the header and windows 1, 2
		select {
		case c := <-code:
			t.Fatalf("watch ended (exit %d) before the rotation:\n%s%s", c, stdout.String(), stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	rotate(path, stderr.String)
	c := <-code
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if last := strings.Fields(lines[len(lines)-1]); last[len(last)-1] != "STOP" {
		t.Errorf("the last window is not the stop:\n%s", stdout.String())
	}
	return c, strings.ReplaceAll(stderr.String(), path, "LOG")
}

func TestWatchTruncated(t *testing.T) {
	code, stderr := watchRotated(t, func(path string, _ func() string) {
		if err := os.WriteFile(path, []byte(failLog), 0o644); err != nil {
			t.Error(err)
		}
	})
	want := "watch: LOG was truncated; reading it from the start\n" +
		"stop: window 3 completes 1 falsified window in a row (below 100.00 %); damage until the stop: 2 requests\n"
	if code != exitStop || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 3 and:\n%s", code, stderr, want)
	}
}

func TestWatchMovedAndRecreated(t *testing.T) {
	code, stderr := watchRotated(t, func(path string, _ func() string) {
		if err := os.Rename(path, path+".1"); err != nil {
			t.Error(err)
		}
		if err := os.WriteFile(path, []byte(failLog), 0o644); err != nil {
			t.Error(err)
		}
	})
	if code != exitStop || !strings.Contains(stderr, "watch: LOG was replaced by a new file; reading the new file from its first line\n") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 3 and a notice of the new file", code, stderr)
	}
}

func TestWatchRemovedAndRecreated(t *testing.T) {
	code, stderr := watchRotated(t, func(path string, stderr func() string) {
		if err := os.Remove(path); err != nil {
			t.Error(err)
		}
		for !strings.Contains(stderr(), "was removed") { // the verdicts would be the same without this wait
			time.Sleep(5 * time.Millisecond)
		}
		if err := os.WriteFile(path, []byte(failLog), 0o644); err != nil {
			t.Error(err)
		}
	})
	want := "watch: LOG was removed; waiting for a new file at that path\n" +
		"watch: LOG was replaced by a new file; reading the new file from its first line\n" +
		"stop: window 3 completes 1 falsified window in a row (below 100.00 %); damage until the stop: 2 requests\n"
	if code != exitStop || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 3 and:\n%s", code, stderr, want)
	}
}
