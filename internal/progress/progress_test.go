package progress

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/internal/progress/progresstest"
)

func TestDisabledWritesNothing(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, false, 100, "ingest", "rows")
	b.Add(10)
	b.Set(50)
	b.Finish()
	if buf.Len() != 0 {
		t.Fatalf("disabled bar wrote %q", buf.String())
	}
}

func TestNilBarIsNoOp(t *testing.T) {
	var b *Bar
	b.Add(1)
	b.Set(2)
	b.Finish()
}

func TestEnabledWritesDescription(t *testing.T) {
	t.Setenv("CI", "") // bars are off in CI logs
	t.Setenv("TERM", "xterm")
	var buf bytes.Buffer
	b := New(&buf, true, 100, "ingest runs.ndjson", "rows")
	time.Sleep(redrawEvery + 10*time.Millisecond) // past the throttle
	b.Add(40)
	b.Set(100)
	b.Finish()
	b.Finish()
	out := buf.String()
	for _, want := range []string{"ingest runs.ndjson", "40/100", "rows/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q: %q", want, out)
		}
	}
	// The rate counts from when the bar appeared: 40 rows in at least
	// 110 ms is at most 363 rows/s (an upper bound only: a slow machine
	// makes it lower, never higher).
	m := regexp.MustCompile(`\(40/100, (\d+) rows/s\)`).FindStringSubmatch(out)
	if m == nil {
		t.Errorf("no rate of 40 rows: %q", out)
	} else if n, _ := strconv.Atoi(m[1]); n > 363 {
		t.Errorf("40 rows in 110 ms shown as %d rows/s", n)
	}
	if strings.Contains(out, "it/s") {
		t.Errorf("a bar of rows shows it/s: %q", out)
	}
}

func TestUnknownTotal(t *testing.T) {
	t.Setenv("CI", "") // bars are off in CI logs
	t.Setenv("TERM", "xterm")
	var buf bytes.Buffer
	b := New(&buf, true, 0, "replay", "windows")
	b.Add(7)
	b.Finish()
	if !strings.Contains(buf.String(), "replay") {
		t.Errorf("output lacks description: %q", buf.String())
	}
}

// CI logs and dumb terminals get no bar even when asked for one.
func TestQuietEnvironments(t *testing.T) {
	for _, env := range [][2]string{{"CI", "true"}, {"TERM", "dumb"}} {
		t.Run(env[0], func(t *testing.T) {
			t.Setenv("CI", "")
			t.Setenv("TERM", "xterm")
			t.Setenv(env[0], env[1])
			var buf bytes.Buffer
			b := NewBytes(&buf, true, 1<<20, "ingest")
			b.Set(1 << 19)
			b.Finish()
			if buf.Len() != 0 {
				t.Errorf("%s=%s: bar drew %q", env[0], env[1], buf.String())
			}
		})
	}
	t.Setenv("CI", "")
	t.Setenv("TERM", "xterm")
	var buf bytes.Buffer
	b := NewBytes(&buf, true, 10<<20, "ingest")
	b.Set(5 << 20)
	b.Finish()
	if !strings.Contains(buf.String(), "MB") {
		t.Errorf("a byte bar should show MB: %q", buf.String())
	}
}

// A finished bar leaves nothing on the terminal: what comes next (a table,
// the prompt) starts on a clean line.
func TestFinishLeavesNoLine(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv("TERM", "xterm")
	for _, unknown := range []bool{false, true} {
		var buf bytes.Buffer
		total := int64(10)
		if unknown {
			total = 0
		}
		b := New(&buf, true, total, "replay", "windows")
		b.Add(3)
		b.Finish()
		if buf.Len() == 0 {
			t.Fatal("the bar drew nothing")
		}
		if got := progresstest.Screen(buf.String()); len(got) != 1 || got[0] != "" {
			t.Errorf("total %d: the terminal shows %q after Finish, want one empty line", total, got)
		}
	}
}

// A row printed while the bar runs starts on a clean line once the bar is
// cleared, and the bar comes back below it.
func TestClearBeforeRow(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv("TERM", "xterm")
	var buf bytes.Buffer
	b := New(&buf, true, 10, "replay", "windows")
	b.Add(1)
	b.Clear()
	buf.WriteString("     1        40\n")
	time.Sleep(redrawEvery + 10*time.Millisecond) // past the throttle
	b.Add(1)
	got := progresstest.Screen(buf.String())
	if len(got) != 2 || got[0] != "     1        40" || !strings.Contains(got[1], "2/10") {
		t.Errorf("the terminal shows %q, want the row alone, then the bar", got)
	}
	b.Finish()
}
