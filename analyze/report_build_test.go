package analyze_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/analyze"
)

// TestBuildReportSectionsAndProgress checks which sections the chaos log
// gets and that progress is reported once per section, ending at the total.
func TestBuildReportSectionsAndProgress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rewind.duckdb")
	ingestChaos(t, path)
	db, err := analyze.Open(context.Background(), path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var calls [][2]int
	doc, err := analyze.BuildReport(db, analyze.ReportOptions{
		Planned:  "tag_hash(20260731, req) < 0.05",
		Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range doc.Sections {
		titles = append(titles, s.Title)
	}
	// No t_ms in the seed's log: no resolution comparison.
	want := []string{"Experiment", "Blast radius", "Falsification sweep", "Stop-damage", "Timeline"}
	if diff := cmp.Diff(want, titles); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	if len(calls) == 0 || calls[len(calls)-1][0] != calls[len(calls)-1][1] {
		t.Errorf("progress calls %v: want one per section, ending at the total", calls)
	}
	timeline := doc.Sections[len(doc.Sections)-1]
	if len(timeline.Charts) != 1 || len(timeline.Charts[0].VMarks) != 1 || timeline.Charts[0].VMarks[0].X != 6 {
		t.Errorf("timeline: want the stop (k = 1) marked at window 6, got %+v", timeline.Charts)
	}
}
