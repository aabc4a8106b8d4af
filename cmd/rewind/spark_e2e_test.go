package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/sparktest"
)

// The analyses that run on Spark print what they print locally: over the
// four seed fixtures, k6's two runs, a real access log and a generated log,
// each analysis's --format json on the database and on Spark over the
// dataset export writes are the same bytes, and where the local run is
// refused the Spark run is refused with the same error line and exit code.
// Needs the cluster at REWIND_SPARK (skipped without it, failed in CI).
func TestSparkSameAsLocal(t *testing.T) {
	url := sparktest.URL(t)
	gen := filepath.Join(t.TempDir(), "generated.ndjson")
	if err := os.WriteFile(gen, []byte(generatedLog(60000)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		ingest []string
	}{
		{"chaos", []string{"../../fixtures/chaos/gunluk.json"}},
		{"peaks", []string{"../../fixtures/peaks/sekil1.csv"}},
		{"retry", []string{"../../fixtures/retry/tiny.ndjson"}},
		{"storm", []string{"../../fixtures/storm/tiny.ndjson"}},
		{"k6", []string{"--experiment", "k6", "--role", "baseline=control", "--role", "chaos=experiment",
			"../../fixtures/k6/baseline.json", "../../fixtures/k6/chaos.json"}},
		{"access", []string{"../../ingest/testdata/real/access/nginx-observiq/input.log"}},
		{"generated", []string{gen}},
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
			for _, a := range sparkAnalyses {
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

// sparkAnalyses are the analyses (and options) with reduce steps on Spark.
var sparkAnalyses = [][]string{
	{"blast-radius"},
	{"peaks"},
	{"peaks", "--resolutions", "1ms,250ms,10s"},
	{"falsification"},
	{"falsification", "--window", "25"},
	{"falsification", "--window", "1s", "--margins", "0,0.01"},
	{"stop-damage"},
	{"stop-damage", "--window", "500ms", "--k", "1,3"},
	{"falsification", "--metric", "p95", "--window", "20"},
	{"falsification", "--metric", "error_rate", "--window", "2s", "--max", "5%"},
	{"stop-damage", "--metric", "mean", "--window", "1s", "--tolerance", "20%"},
	{"retries"},
	{"retries", "--affected", "1s..1.3s"},
	{"amplification"},
	{"amplification", "--tick", "250ms", "--fault", "1s..2s", "--normal-rate", "2"},
	{"amplification", "--runs", "nothing*"},
	{"peaks", "--sliding"},
	{"peaks", "--sliding", "--resolutions", "1ms,250ms,10s"},
	{"peaks", "--by", "status_class"},
	{"peaks", "--sliding", "--by", "outcome,tagged"},
	{"retries", "--by", "outcome"},
	{"amplification", "--by", "status_class,tagged"},
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// generatedLog is a log of n requests per run, control and experiment,
// with times, latencies, failures that grow in the experiment run, tags
// and a plan and start stored (a blast radius to check).
func generatedLog(n int) string {
	var b strings.Builder
	b.WriteString(`{"record":"experiment","experiment":"gen","params":{"start":1000,"planned":"tag_hash(20260731, req) < 0.05","window":50}}` + "\n")
	for _, run := range []string{"control", "experiment"} {
		for i := range n {
			h := (i*2654435761 + len(run)*97) % 1000
			outcome := "ok"
			if h < 20 || (run == "experiment" && i > n/2 && h < 60) {
				outcome = "error"
			}
			fmt.Fprintf(&b, `{"experiment":"gen","run":"%s","req":%d,"t_ms":%d.%03d,"latency_ms":%d.%d,"outcome":"%s","tagged":%v}`+"\n",
				run, i, i*3, h, 5+h%90, h%10, outcome, run == "experiment" && h%20 == 0)
		}
	}
	return b.String()
}
