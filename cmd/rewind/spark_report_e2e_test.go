package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/sparktest"
)

// rewind report --spark prints what rewind report prints on the dataset in
// place (and so on the database: TestCLI's onDataset), as text, JSON and
// HTML, for a log whose sections all run on Spark (the JSON's mean
// latencies within sparktest.MeanTolerance); for a log with a
// section that does not, it prints nothing and exits 1 naming the section.
// Needs the cluster at REWIND_SPARK (skipped without it, failed in CI).
func TestSparkReportSameAsLocal(t *testing.T) {
	url := sparktest.URL(t)
	t.Setenv("SOURCE_DATE_EPOCH", "1796169600") // the footer's date
	gen := filepath.Join(t.TempDir(), "generated.ndjson")
	if err := os.WriteFile(gen, []byte(generatedLog(3000)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		ingest  []string
		reports [][]string
		refused string // the section a refusal names; "" when the report runs
	}{
		{"chaos", []string{"../../fixtures/chaos/gunluk.json"}, [][]string{
			{"--format", "json"},
			{},
			{"--html", "-"},
			{"--format", "json", "--window", "25", "--stop-after", "2", "--planned", "tag_hash(20260731, req) < 0.05", "--metric", "error_rate", "--max", "10%"},
		}, ""},
		{"generated", []string{gen}, [][]string{{"--format", "json"}, {"--format", "json", "--metric", "mean", "--tolerance", "30%"}}, ""},
		{"peaks", []string{"../../fixtures/peaks/sekil1.csv"}, [][]string{{}}, "report's verdict for a log without a control"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			db, ds := filepath.Join(dir, "rewind.duckdb"), filepath.Join(dir, "ds")
			if _, errOut, code := runArgs(append([]string{"ingest", "--db", db}, c.ingest...)); code != 0 {
				t.Fatalf("ingest: exit %d: %s", code, errOut)
			}
			if _, errOut, code := runArgs([]string{"export", "--db", db, ds}); code != 0 {
				t.Fatalf("export: exit %d: %s", code, errOut)
			}
			for _, a := range c.reports {
				args := append([]string{"report"}, a...)
				lo, le, lc := runArgs(append(args, "--dataset", ds))
				so, se, sc := runArgs(append(args, "--spark", url, "--dataset", ds))
				if lc != 0 {
					t.Fatalf("%v: locally exit %d: %s", a, lc, le)
				}
				same := lo == so
				if slices.Contains(a, "json") && sc == 0 {
					// a mean latency may differ in its last bits (docs/scale.md, Exactness)
					err := sparktest.SameReportJSON([]byte(lo), []byte(so))
					same = err == nil
					if err != nil {
						se += err.Error()
					}
				}
				if c.refused == "" && (!same || sc != 0) {
					t.Errorf("%v: locally\n%s\non Spark exit %d\n%s%s", a, lo, sc, so, se)
				}
				if c.refused != "" && (sc != 1 || so != "" || !strings.HasPrefix(se, "Error: "+c.refused) || !strings.Contains(se, "does not run on Spark yet")) {
					t.Errorf("%v: on Spark exit %d\n%s%s\nwant exit 1, nothing printed and Error: %s … does not run on Spark yet", a, sc, so, se, c.refused)
				}
			}
		})
	}
}
