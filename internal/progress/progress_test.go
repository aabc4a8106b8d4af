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
	var buf bytes.Buffer
	b := New(&buf, true, 0, "replay")
	b.Add(7)
	b.Finish()
	if !strings.Contains(buf.String(), "replay") {
		t.Errorf("output lacks description: %q", buf.String())
	}
}
