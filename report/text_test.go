package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/golden"
)

func TestRenderTextGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderText(&buf, sampleDocument()); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/sample.txt", buf.Bytes())
}

func TestRenderTextEscapesControlCharacters(t *testing.T) {
	d := Document{Sections: []Section{{Tables: []Table{{
		Columns: []Column{{Name: "run"}},
		Rows:    [][]Value{{"a\x1b[2Jb\nc"}},
	}}}}}
	var buf bytes.Buffer
	if err := RenderText(&buf, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "\x1b") || !strings.Contains(buf.String(), `a\x1b[2Jb\x0ac`) {
		t.Errorf("control characters not escaped: %q", buf.String())
	}
}
