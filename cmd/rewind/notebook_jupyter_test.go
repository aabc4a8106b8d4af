package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNotebookRuns executes docs/notebooks/explore.ipynb with nbclient in a
// Jupyter kernel, the way a reader runs it, with this test binary as the
// rewind on its PATH, and checks what it shows: the ingest, the seed's
// falsification numbers, the peaks table and a chart.
func TestNotebookRuns(t *testing.T) {
	py := pythons(t)[0] // the environment with nbclient (.ci/python)
	root, _ := filepath.Abs("../..")
	work := t.TempDir()
	bin := t.TempDir()
	wrapper := "#!/bin/sh\nREWIND_AS_MAIN=1 exec " + shellQuote(os.Args[0]) + " -- \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "rewind"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(work, "executed.ipynb")
	cmd := exec.Command(py, filepath.Join(root, "cmd/rewind/testdata/python/run_notebook.py"),
		filepath.Join(root, "docs/notebooks/explore.ipynb"), work, out)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "REWIND_ROOT="+root, "MPLBACKEND=module://matplotlib_inline.backend_inline")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the notebook failed: %v\n%s", err, msg)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			CellType string `json:"cell_type"`
			Outputs  []struct {
				Text any            `json:"text"`
				Data map[string]any `json:"data"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(raw, &nb); err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	pngs := 0
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			text.WriteString(joined(o.Text) + "\n")
			text.WriteString(joined(o.Data["text/plain"]) + "\n")
			if p, ok := o.Data["image/png"].(string); ok {
				b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(p))
				if err != nil {
					t.Fatal(err)
				}
				img, err := png.Decode(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("the chart is not a PNG: %v", err)
				}
				if r := img.Bounds(); r.Dx() < 300 || r.Dy() < 100 {
					t.Errorf("the chart is %v", r)
				}
				pngs++
			}
		}
	}
	got := text.String()
	for _, want := range []string{
		"gunluk.json: gunluk, experiment gunluk: 800 rows",
		"margin 10 %: control falsified 0 of 10 windows, experiment 4 of 10, from window 6",
		"sekil1.csv: csv, experiment sekil1: 153 rows",
		"first_falsified_window",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the notebook's outputs lack %q:\n%s", want, got)
		}
	}
	// the peaks seed's 100 ms and 1 s peaks of run C, as the seed prints them
	for _, re := range []string{`(?m)^\d+\s+C\s+100\s+76\s+541$`, `(?m)^\d+\s+C\s+1000\s+225\s+541$`} {
		if !regexp.MustCompile(re).MatchString(got) {
			t.Errorf("the notebook's peaks lack a row %s:\n%s", re, got)
		}
	}
	if pngs != 1 {
		t.Errorf("the notebook shows %d charts, want 1", pngs)
	}
}

// joined is a notebook text field, a string or a list of lines.
func joined(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var b strings.Builder
		for _, s := range x {
			if s, ok := s.(string); ok {
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}
