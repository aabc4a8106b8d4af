package report

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// hostile is a run name that would run script if it reached the page as markup.
const hostile = "<script>alert(1)</script>"

// sampleDocument has every kind of content: a table with units, NULLs and a
// hostile run name; a step chart with a threshold and a stop mark; a line
// chart of two series at different resolutions; a bar chart of categories.
func sampleDocument() Document {
	return Document{
		Title:    "Experiment chaos-1",
		Subtitle: "log: runs/" + hostile + ".ndjson",
		Sections: []Section{
			{
				Title: "Blast radius",
				Note:  "Planned vs measured share of affected requests.",
				Tables: []Table{{
					Caption: "per run",
					Columns: []Column{{Name: "run"}, {Name: "planned", Unit: "%"}, {Name: "measured", Unit: "%"}, {Name: "requests"}},
					Rows: [][]Value{
						{"baseline", 0.0, 0.1 + 0.2, int64(12000)},
						{hostile, 10.0, 11.234567, int64(980)},
						{"late", 5.0, nil, int32(7)},
					},
					Omitted: 2,
				}},
			},
			{
				Title: "Replay timeline",
				Charts: []Chart{{
					Title: "ok share per window", Kind: KindStep, XLabel: "t (ms)", YLabel: "ok share",
					Series: []Series{{Name: "run " + hostile, X: []float64{0, 100, 200, 300, 400}, Y: []float64{1, 0.99, 0.91, math.NaN(), 0.97}}},
					HLines: []Line{{Label: "threshold", Y: 0.95}},
					VMarks: []Mark{{Label: "stop", X: 200}},
				}},
			},
			{
				Title: "Resolution",
				Charts: []Chart{{
					Title: "errors per window", XLabel: "t (ms)", YLabel: "errors",
					Series: []Series{
						{Name: "100 ms", X: []float64{0, 100, 200, 300, 400, 500}, Y: []float64{0, 4, 30, 2, 0, 1}},
						{Name: "1 s", X: []float64{0, 500}, Y: []float64{3.4, 0.6}},
					},
				}},
			},
			{
				Title: "Falsification sweep",
				Charts: []Chart{{
					Title: "false alarms vs detections", Kind: KindBar, XLabel: "margin", YLabel: "count",
					XLabels: []string{"0.01", "0.02", hostile},
					Series: []Series{
						{Name: "false alarms", X: []float64{0, 1, 2}, Y: []float64{9, 4, 1}},
						{Name: "detections", X: []float64{0, 1, 2}, Y: []float64{10, 9, 6}},
					},
				}},
			},
		},
	}
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from output; run go test -update and review the diff.\ngot:\n%s", path, got)
	}
}
