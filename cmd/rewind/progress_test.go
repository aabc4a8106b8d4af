package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/progress/progresstest"
)

// A paced replay on a terminal draws its bar on stderr, but the screen
// (stdout and stderr together) ends up showing the table alone: the bar is
// cleared before each row and gone when the replay ends.
func TestReplayBarLeavesTheTable(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv("TERM", "xterm")
	root, _ := filepath.Abs("../..")
	db := filepath.Join(t.TempDir(), "r.duckdb")
	ctx := context.Background()
	if code := run(ctx, []string{"ingest", "--db", db, filepath.Join(root, "cmd/rewind/testdata/cli/watch-stop/live.ndjson")}, nil, &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatal("ingest failed")
	}
	args := []string{"--db", db, "--experiment", "live", "--stop-after", "3"}
	var want bytes.Buffer
	if err := runReplay(ctx, &env{stdout: &want, stderr: &want}, append(args, "--fast")); err != nil {
		t.Fatal(err)
	}
	var screen bytes.Buffer
	e := &env{stdout: &screen, stderr: &screen, stdoutTTY: true, stderrTTY: true}
	if err := runReplay(ctx, e, append(args, "--speed", "20")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(screen.String(), "windows/s") {
		t.Fatalf("no bar was drawn: %q", screen.String())
	}
	if got := strings.Join(progresstest.Screen(screen.String()), "\n"); got != want.String() {
		t.Errorf("the terminal shows\n%s\nwant the table alone:\n%s", got, want.String())
	}
}
