package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-dev/rewind/internal/sparktest"
)

// sparkVariants are options of analyses that run on Spark, newer than
// sparkAnalyses's list: each prints the same bytes with --spark as with
// --db (or the same error line and exit code). They run on two inputs only
// (TestSparkVariants), as each case costs a few Spark steps per input.
var sparkVariants = [][]string{
	{"thresholds", "--threshold", "http_req_duration: avg<100", "--threshold", "http_req_failed: rate<0.05"},
	{"thresholds", "--threshold", "http_req_duration{expected_response:true}: avg<=80", "--window", "5s"},
}

// The sparkVariants print what they print locally over k6's two runs and a
// generated log of 100 k rows, as TestSparkSameAsLocal's analyses do.
// Needs the cluster at REWIND_SPARK (skipped without it, failed in CI).
func TestSparkVariants(t *testing.T) {
	url := sparktest.URL(t)
	gen := filepath.Join(t.TempDir(), "generated.ndjson")
	if err := os.WriteFile(gen, []byte(generatedLog(50000)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		ingest []string
	}{
		{"k6", []string{"--experiment", "k6", "--role", "baseline=control", "--role", "chaos=experiment",
			"../../fixtures/k6/baseline.json", "../../fixtures/k6/chaos.json"}},
		{"generated", []string{gen}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			db, ds := filepath.Join(dir, "rewind.duckdb"), filepath.Join(dir, "ds")
			if _, errOut, code := runArgs(append([]string{"ingest", "--db", db}, c.ingest...)); code != 0 {
				t.Fatalf("ingest: exit %d: %s", code, errOut)
			}
			if _, errOut, code := runArgs([]string{"export", "--db", db, ds}); code != 0 {
				t.Fatalf("export: exit %d: %s", code, errOut)
			}
			for _, a := range sparkVariants {
				args := append([]string{"analyze"}, a...)
				lo, le, lc := runArgs(append(args, "--db", db, "--format", "json"))
				so, se, sc := runArgs(append(args, "--spark", url, "--dataset", ds, "--format", "json"))
				if lo != so || lc != sc || firstLine(le) != firstLine(se) {
					t.Errorf("%v: locally exit %d\n%s%s\non Spark exit %d\n%s%s", a, lc, lo, le, sc, so, se)
				}
			}
		})
	}
}
