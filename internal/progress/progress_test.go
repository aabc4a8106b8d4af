package progress

import (
	"bytes"
	"strings"
	"testing"
)

func TestDisabledWritesNothing(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, false, 100, "ingest")
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
	b := New(&buf, true, 100, "ingest runs.ndjson")
	b.Add(40)
	b.Set(100)
	b.Finish()
	b.Finish()
	out := buf.String()
	for _, want := range []string{"ingest runs.ndjson", "100/100", "it/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q: %q", want, out)
		}
	}
}

func TestUnknownTotal(t *testing.T) {
	t.Setenv("CI", "") // bars are off in CI logs
	t.Setenv("TERM", "xterm")
	var buf bytes.Buffer
	b := New(&buf, true, 0, "replay")
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
