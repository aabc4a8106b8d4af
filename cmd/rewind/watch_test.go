package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// liveLog is the chaos fixture's control and experiment runs as a canonical
// NDJSON log (windows of 40 rows; with baseline 0.96 and margin 0.10 the
// stop fires at window 6 with 8 requests damaged).
const liveLog = "testdata/cli/watch-stop/live.ndjson"

// TestWatchFollowsGrowingLog appends the log to a file in chunks that cut
// lines in half, from another goroutine, while watch follows it: watch must
// wait for the partial lines and exit 3 at window 6.
func TestWatchFollowsGrowingLog(t *testing.T) {
	data, err := os.ReadFile(liveLog)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "live.ndjson")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A generous deadline turns a watch that never stops into a failure,
	// not a hung test; the verdict does not depend on timing.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- appendSlowly(ctx, path, data, 777) }()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"watch", path, "--baseline-share", "0.96", "--window", "40"}, nil, &stdout, &stderr)
	cancel()
	if err := <-done; err != nil && ctx.Err() == nil {
		t.Fatal(err)
	}
	if code != exitStop {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitStop, stderr.String())
	}
	want := "stop: window 6 completes 1 falsified window in a row (below 86.00 %); damage until the stop: 8 requests\n"
	if diff := cmp.Diff(want, stderr.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	last := strings.Fields(lines[len(lines)-1])
	if len(lines) != 7 || last[0] != "6" || last[len(last)-1] != "STOP" {
		t.Errorf("want a header and windows 1-6 ending in STOP, got:\n%s", stdout.String())
	}
}

// appendSlowly appends data to path in chunks of n bytes, pausing between
// them so that the reader sees the file grow and stop at half lines.
func appendSlowly(ctx context.Context, path string, data []byte, n int) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	for len(data) > 0 && ctx.Err() == nil {
		k := min(n, len(data))
		if _, err := f.Write(data[:k]); err != nil {
			return err
		}
		data = data[k:]
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// TestWatchEndsWithoutStop: a log that never falsifies K windows in a row
// exits 0 at end of file.
func TestWatchEndsWithoutStop(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"watch", liveLog, "--baseline-share", "0.96", "--window", "40",
		"--stop-after", "4", "--until-eof"}, nil, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr.String())
	}
	if got := strings.Count(stdout.String(), "\n"); got != 11 {
		t.Errorf("want a header and 10 windows, got %d lines:\n%s", got, stdout.String())
	}
	if !strings.Contains(stderr.String(), "stop: never") {
		t.Errorf("stderr does not say the stop never fired:\n%s", stderr.String())
	}
}

// TestWatchMalformedLine: a complete line that is not JSON is an error
// naming file:line, while a partial last line is not (it is waited for).
func TestWatchMalformedLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.ndjson")
	log := `{"run":"deney","role":"experiment","outcome":"ok"}` + "\n" + `{"run":"deney","outcome":` + "\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"watch", path, "--baseline-share", "1", "--window", "5", "--until-eof"}, nil, &stdout, &stderr)
	if code != exitError || !strings.HasPrefix(stderr.String(), "Error: "+path+":2: ") {
		t.Errorf("exit %d, stderr %q: want exit 1 and an error at %s:2", code, stderr.String(), path)
	}
}
