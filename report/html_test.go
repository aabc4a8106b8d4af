package report

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func renderHTML(t *testing.T, d Document) string {
	t.Helper()
	var buf bytes.Buffer
	if err := RenderHTML(&buf, d); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestRenderHTMLEscapesData(t *testing.T) {
	page := renderHTML(t, sampleDocument())
	if n := strings.Count(page, hostile); n != 0 {
		t.Errorf("hostile string appears %d times unescaped", n)
	}
	for _, want := range []string{
		"<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>",
		"log: runs/&lt;script&gt;alert(1)&lt;/script&gt;.ndjson",
		`\u003cscript\u003ealert(1)\u003c/script\u003e`, // inside the JSON data block
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestRenderHTMLSelfContained(t *testing.T) {
	page := renderHTML(t, sampleDocument())
	for _, banned := range []string{"<script src", "<link ", "@import", "url(", `src="http`, `href="http`} {
		if strings.Contains(page, banned) {
			t.Errorf("page contains %q: it must load nothing at view time", banned)
		}
	}
	if got := strings.Count(page, `<figure class="chart`); got != 7 {
		t.Errorf("page has %d charts, want 7", got)
	}
}

func TestRenderHTMLDeterministic(t *testing.T) {
	a, b := renderHTML(t, sampleDocument()), renderHTML(t, sampleDocument())
	if a != b {
		t.Error("two renders of the same document differ")
	}
}

// TestAssetsMatchSums proves the embedded chart library is the one that
// assets/fetch.sh verified.
func TestAssetsMatchSums(t *testing.T) {
	embedded := map[string]string{"uPlot.iife.min.js": uplotJS, "uPlot.min.css": uplotCSS}
	checked := 0
	sc := bufio.NewScanner(strings.NewReader(assetSums))
	for sc.Scan() {
		want, name, _ := strings.Cut(sc.Text(), "  ")
		content, ok := embedded[name]
		if !ok {
			continue // LICENSE: kept beside the files, not embedded
		}
		sum := sha256.Sum256([]byte(content))
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s: sha256 %s, SHA256SUMS says %s", name, got, want)
		}
		checked++
	}
	if checked != 2 {
		t.Errorf("checked %d assets, want 2", checked)
	}
}
