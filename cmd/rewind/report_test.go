package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// xssLog is a tiny canonical NDJSON log whose experiment and run names are
// markup: a report must show them as text.
const xssLog = `{"record":"experiment","experiment":"<img src=x onerror=alert(2)>","params":{"window":2}}
{"record":"run","experiment":"<img src=x onerror=alert(2)>","run":"<script>alert(1)</script>","role":"control"}
{"record":"run","experiment":"<img src=x onerror=alert(2)>","run":"exp","role":"experiment"}
{"experiment":"<img src=x onerror=alert(2)>","run":"<script>alert(1)</script>","role":"control","req":0,"t_ms":0,"outcome":"ok"}
{"experiment":"<img src=x onerror=alert(2)>","run":"<script>alert(1)</script>","role":"control","req":1,"t_ms":150,"outcome":"ok"}
{"experiment":"<img src=x onerror=alert(2)>","run":"exp","role":"experiment","req":0,"t_ms":0,"outcome":"ok","tagged":true}
{"experiment":"<img src=x onerror=alert(2)>","run":"exp","role":"experiment","req":1,"t_ms":1200,"outcome":"error","tagged":true}
`

// TestReportEscapesLogStrings goes through the whole path: ingest a log
// whose names are markup, write the HTML report, and look at the bytes.
func TestReportEscapesLogStrings(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "xss.ndjson")
	if err := os.WriteFile(logPath, []byte(xssLog), 0o644); err != nil {
		t.Fatal(err)
	}
	db, page := filepath.Join(dir, "x.duckdb"), filepath.Join(dir, "x.html")
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"report", "--db", db, "--html", page, logPath}, strings.NewReader(""), &out, &errOut)
	if code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, errOut.String())
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt;"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("report lacks the escaped name %s", want)
		}
	}
	for _, raw := range []string{"<script>alert(1)</script>", "<img src=x"} {
		if bytes.Contains(html, []byte(raw)) {
			t.Errorf("report contains raw markup %s", raw)
		}
	}
}

// TestReportSplitRunAtDefaultMargin: --baseline-until with a share metric
// and no bound judges at the default margin, whose sweep has a margin
// column and no threshold one; the verdict names the threshold, the
// baseline less the margin (the report panicked here: index -1).
func TestReportSplitRunAtDefaultMargin(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.duckdb")
	out, errOut, code := runArgs([]string{"report", "--db", db, "--baseline-until", "1s", "--window", "500ms", "--margin", "0.25",
		"../../fixtures/hypotheses/checkout.ndjson"})
	if code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, errOut)
	}
	if want := "a window with ok_share < baseline − 25 % falsifies (threshold 75.00 %) per 500ms window"; !strings.Contains(out, want) {
		t.Errorf("the verdict lacks %q:\n%s", want, out)
	}
}
