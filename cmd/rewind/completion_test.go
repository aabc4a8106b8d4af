package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompletions(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "c.duckdb")
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"ingest", "--db", db, "--quiet", "../../fixtures/chaos/gunluk.json"}, nil, &out, &errb); code != 0 {
		t.Fatalf("ingest: %s", errb.String())
	}
	for _, c := range []struct {
		words []string
		want  []string
	}{
		{[]string{"an"}, []string{"analyze"}},
		{[]string{"analyze", "st"}, []string{"stop-damage"}},
		{[]string{"sim", "ch"}, []string{"chaos"}},
		{[]string{"analyze", "peaks", "--sl"}, []string{"--sliding"}},
		{[]string{"ingest", "--ma"}, []string{"--map", "--max-record", "--max-ratio"}},
		{[]string{"ingest", "--from", "ve"}, []string{"vegeta"}},
		{[]string{"analyze", "falsification", "--format", "j"}, []string{"json"}},
		{[]string{"report", "--format", ""}, []string{"table", "json"}},
		{[]string{"sql", "--format", ""}, []string{"table", "json", "csv"}},
		{[]string{"analyze", "falsification", "--db", db, "--experiment", ""}, []string{"gunluk"}},
		{[]string{"completion", "z"}, []string{"zsh"}},
		{[]string{"replay", "--me"}, []string{"--metric", "--memory-limit"}}, // each flag once, in --help order
		{[]string{"replay", "--metric", "p9"}, []string{"p90", "p95", "p99", "p99.9"}},
		{[]string{"watch", "--stop-on", ""}, []string{"burn-rate", "windows"}},
		{[]string{"ingest", "fix"}, nil}, // file names: left to the shell
		{[]string{"__"}, nil},
	} {
		if got := completions(ctx, c.words); !cmp.Equal(c.want, got) {
			t.Errorf("complete %q: got %q, want %q", c.words, got, c.want)
		}
	}
}

// The scripts parse in the shells that are installed.
func TestCompletionScriptsParse(t *testing.T) {
	for shell, check := range map[string][]string{"bash": {"bash", "-n"}, "zsh": {"zsh", "-n"}, "fish": {"fish", "--no-execute"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"completion", shell}, nil, &out, &errb); code != 0 || out.Len() == 0 {
			t.Fatalf("completion %s: exit %d, %s", shell, code, errb.String())
		}
		if _, err := exec.LookPath(check[0]); err != nil {
			continue
		}
		cmd := exec.Command(check[0], check[1:]...)
		cmd.Stdin = &out
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v: %s", shell, err, msg)
		}
	}
}

func TestVersionAndHelp(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, nil, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "rewind ") || !strings.HasPrefix(lines[1], "go 1.") ||
			!strings.HasPrefix(lines[2], "duckdb v1.5.6") {
			t.Errorf("%v: %q", args, out.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"help", "analyze", "peaks"}, nil, &out, &errb); code != 0 ||
		!strings.HasPrefix(out.String(), "Usage: rewind analyze peaks") {
		t.Errorf("help analyze peaks: exit %d, %q", code, out.String())
	}
}
