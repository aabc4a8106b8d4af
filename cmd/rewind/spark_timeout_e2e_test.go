package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/sparktest"
)

// --spark-timeout: an analysis or a report whose steps take longer than
// the deadline (50 ms, against real queries on the cluster) fails with
// exit 1, nothing on stdout, and one error naming the step and the
// deadline and saying how to give more time; the same command in a new
// session then answers as it does in place on the dataset; a negative deadline is a usage
// error. Needs the cluster at REWIND_SPARK.
func TestSparkTimeout(t *testing.T) {
	url := sparktest.URL(t)
	t.Setenv("SOURCE_DATE_EPOCH", "1796169600") // the report's footer
	dir := t.TempDir()
	db, ds := filepath.Join(dir, "rewind.duckdb"), filepath.Join(dir, "ds")
	if _, errOut, code := runArgs([]string{"ingest", "--db", db, "../../fixtures/chaos/gunluk.json"}); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runArgs([]string{"export", "--db", db, ds}); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	for _, args := range [][]string{{"analyze", "falsification", "--window", "20"}, {"report"}} {
		spark := append(args, "--spark", url, "--dataset", ds, "--format", "json")
		out, errOut, code := runArgs(append(spark, "--spark-timeout", "50ms"))
		if code != 1 || out != "" || !strings.Contains(errOut, "on the cluster: no result within 50ms, the deadline of a step, so it was interrupted") ||
			!strings.Contains(errOut, "--spark-timeout DURATION") || strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
			t.Errorf("%v --spark-timeout 50ms: exit %d, stdout %q, stderr %q; want exit 1, no stdout, the step past its deadline", args, code, out, errOut)
		}
		t.Logf("%v --spark-timeout 50ms: %s", args, strings.TrimSpace(errOut))
		lo, le, lc := runArgs(append(args, "--dataset", ds, "--format", "json"))
		so, se, sc := runArgs(spark)
		if lc != 0 || sc != 0 || lo != so {
			t.Errorf("%v after a step past its deadline: locally exit %d\n%s%s\non Spark exit %d\n%s%s", args, lc, lo, le, sc, so, se)
		}
	}
	out, errOut, code := runArgs([]string{"analyze", "peaks", "--spark", url, "--dataset", ds, "--spark-timeout", "-1s"})
	if code != 2 || out != "" || !strings.Contains(errOut, "--spark-timeout -1s: want a positive duration") {
		t.Errorf("--spark-timeout -1s: exit %d, stdout %q, stderr %q; want a usage error", code, out, errOut)
	}
}
