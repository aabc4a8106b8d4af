package report_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/internal/golden"
	"github.com/rewind-dev/rewind/report"
	"github.com/rewind-dev/rewind/report/pagetest"
	"github.com/rewind-dev/rewind/store"
)

// updating is the package's -update flag (sample_test.go): rewrite golden
// files such as testdata/latency-report.txt.

// TestBuildReportSectionsAndProgress checks which sections the chaos log
// gets and that progress is reported once per section, ending at the total.
func TestBuildReportSectionsAndProgress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rewind.duckdb")
	ingestChaos(t, path)
	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var calls [][2]int
	doc, err := report.Build(db, report.Options{
		Planned:  "tag_hash(20260731, req) < 0.05",
		Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	// No t_ms in the seed's log: no resolution comparison, no latency.
	want := []string{"Verdict", "Experiment", "Control vs experiment", "Blast radius", "Falsification sweep", "Stop-damage", "Timeline"}
	if diff := cmp.Diff(want, titles(doc)); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	if len(calls) == 0 || calls[len(calls)-1][0] != calls[len(calls)-1][1] {
		t.Errorf("progress calls %v: want one per section, ending at the total", calls)
	}
	// Both runs have ten windows of 40 requests: one chart, the experiment
	// run drawn last.
	timeline := section(t, doc, "Timeline")
	if len(timeline.Charts) != 1 || len(timeline.Charts[0].VMarks) != 1 || timeline.Charts[0].VMarks[0].X != 6 {
		t.Fatalf("timeline: want one chart with the stop (k = 1) marked at window 6, got %+v", timeline.Charts)
	}
	if got := keys(timeline.Charts[0]); !slices.Equal(got, []string{"control", "experiment"}) {
		t.Errorf("timeline series keys %q, want control, experiment", got)
	}
}

// latencyReport builds the report of report/testdata/latency.ndjson: a
// control run of 40 s and an experiment run of 50 s at 5 requests/s, with a
// latency regression from 20 s to 35 s and a pause at 42-44 s.
func latencyReport(t *testing.T) report.Document {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "rewind.duckdb"), store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := ingest.Files(ctx, db, ingest.Options{}, []string{"testdata/latency.ndjson"}); err != nil {
		t.Fatal(err)
	}
	doc, err := report.Build(db, report.Options{Name: asFlag})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestBuildReportLatency checks the report of a log with latencies: its
// text against a golden (go test -run Report -update rewrites it),
// and the shapes the page depends on.
func TestBuildReportLatency(t *testing.T) {
	doc := latencyReport(t)
	var buf bytes.Buffer
	if err := report.RenderText(&buf, doc); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/latency-report.txt", buf.Bytes())

	want := []string{"Verdict", "Experiment", "Control vs experiment", "Blast radius", "Falsification sweep", "Stop-damage", "Timeline", "Resolution", "Latency"}
	if diff := cmp.Diff(want, titles(doc)); diff != "" {
		t.Fatalf("sections (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"control", "experiment", "ok", "error"}, doc.Keys); diff != "" {
		t.Errorf("colour keys (-want +got):\n%s", diff)
	}
	// 10 windows of 5 s against 8: both on one chart, the stop marked.
	tl := section(t, doc, "Timeline").Charts
	if len(tl) != 1 || len(tl[0].Series) != 2 || len(tl[0].VMarks) != 1 {
		t.Errorf("timeline: want one chart of both runs with the stop, got %+v", tl)
	}
	// 5 requests/s is sparse per 100 ms (0 or 1 request): the busiest 100 ms
	// of each second, 10 req/s, beside the 1 s rate, 5 req/s.
	res := section(t, doc, "Resolution").Charts[0]
	if got := res.Series[0].Y[:2]; res.Series[0].Name != "busiest 100 ms of each 1 s" || !slices.Equal(got, []float64{10, 10}) {
		t.Errorf("control at 100 ms: %q starts %v, want the busiest 100 ms of each 1 s, 10 10 req/s", res.Series[0].Name, got)
	}
	if got := res.Series[1].Y[:2]; !slices.Equal(got, []float64{5, 5}) {
		t.Errorf("control per 1 s starts %v, want 5 5 req/s", got)
	}
	lat := section(t, doc, "Latency")
	if len(lat.Charts) != 6 || lat.Charts[0].Kind != report.KindPoints || lat.Charts[1].Half || !lat.Charts[4].Half || !lat.Charts[5].Half {
		t.Errorf("latency: want per run the dots and the percentiles, then both overlays at half width; got %d charts", len(lat.Charts))
	}
	if got := seriesNames(lat.Charts[2]); !slices.Equal(got, []string{"ok", "error"}) {
		t.Errorf("experiment dots: series %q, want ok, error", got)
	}
}

// TestReportInBrowser loads the latency report in Chromium at 1400 px, its
// experiment run renamed <script>alert(1)</script>: every chart draws (the
// overlays of both runs among them), legends name their series, exactly
// the charts with a fault window show the shading, no table is wider than
// the page, and the run's name never runs as script.
func TestReportInBrowser(t *testing.T) {
	browser := pagetest.Chromium(t)
	in, err := os.ReadFile("testdata/latency.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	const hostile = "<script>alert(1)</script>"
	log := `{"record":"run","experiment":"latency","run":"` + hostile + `","role":"experiment"}` + "\n" +
		strings.ReplaceAll(string(in), `"run":"experiment"`, `"run":"`+hostile+`"`)
	path := filepath.Join(t.TempDir(), "latency.ndjson")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, _ := buildFrom(t, ingest.Options{}, report.Options{}, path)
	var page bytes.Buffer
	if err := report.RenderHTML(&page, doc); err != nil {
		t.Fatal(err)
	}
	var names [][]string
	wantBanded := []int{}
	overlays := 0
	for _, s := range doc.Sections {
		for _, c := range s.Charts {
			if len(c.Bands) > 0 {
				wantBanded = append(wantBanded, len(names))
			}
			if len(c.Series) == 2 && slices.Equal(seriesNames(c), []string{"control", hostile}) {
				overlays++
			}
			names = append(names, seriesNames(c))
		}
	}
	if overlays != 2 {
		t.Errorf("%d overlay charts of both runs, want 2 (latency and ok share)", overlays)
	}
	p := pagetest.Load(t, browser, page.String())
	pagetest.CheckDrawn(t, p, names)
	if diff := cmp.Diff(wantBanded, p.Banded()); diff != "" {
		t.Errorf("charts showing the fault window (-want +got):\n%s", diff)
	}
	if _, ok := p.Attrs["data-test-alerted"]; ok {
		t.Error("the run name from the log ran as script")
	}
	if strings.Contains(p.DOM, hostile) {
		t.Error("the run name from the log is markup in the DOM")
	}
}

// section is the report's section of that title.
func section(t *testing.T, d report.Document, title string) report.Section {
	t.Helper()
	for _, s := range d.Sections {
		if s.Title == title {
			return s
		}
	}
	t.Fatalf("no section %q in %q", title, titles(d))
	return report.Section{}
}

func titles(d report.Document) []string {
	var out []string
	for _, s := range d.Sections {
		out = append(out, s.Title)
	}
	return out
}

func seriesNames(c report.Chart) []string {
	var out []string
	for _, s := range c.Series {
		out = append(out, s.Name)
	}
	return out
}

func keys(c report.Chart) []string {
	var out []string
	for _, s := range c.Series {
		out = append(out, s.Key)
	}
	return out
}

func ingestChaos(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := ingest.Files(ctx, db, ingest.Options{}, []string{"../fixtures/chaos/gunluk.json"}); err != nil {
		t.Fatal(err)
	}
}
