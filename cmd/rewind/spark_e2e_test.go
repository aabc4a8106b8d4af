package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/sparktest"
)

// The analyses that run on Spark print what they print locally: over the
// four seed fixtures, k6's two runs, a real access log and a generated log
// of 1 M rows, each analysis's --format json on the database and on Spark
// over the dataset export writes are the same bytes, and where the local run
// is refused the Spark run is refused with the same error line and exit code.
// Every analysis (sparkAnalyses) runs on every input in its plain form, and
// with --by on chaos, k6 and the access log (plainAnalyses); their options (sparkOptions) run on k6's two runs (the
// SLO analyses', sparkOnK6) or a generated log of 100 k rows (the others'),
// where a Spark run costs seconds (the reduce steps' edges are analyze's
// Spark tests'), not on the 1 M rows, where it costs tens of seconds under
// the suite's load.
// Needs the cluster at REWIND_SPARK (skipped without it, failed in CI). The
// inputs run side by side (go test's -parallel, GOMAXPROCS by default): a
// Spark step's time is mostly the cluster's scheduling, which overlaps.
func TestSparkSameAsLocal(t *testing.T) {
	url := sparktest.URL(t)
	dir := t.TempDir()
	gen, small := filepath.Join(dir, "generated.ndjson"), filepath.Join(dir, "generated-100k.ndjson")
	if err := os.WriteFile(gen, []byte(generatedLog(500000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(small, []byte(generatedLog(50000)), 0o644); err != nil {
		t.Fatal(err)
	}
	k6 := []string{"--experiment", "k6", "--role", "baseline=control", "--role", "chaos=experiment",
		"../../fixtures/k6/baseline.json", "../../fixtures/k6/chaos.json"}
	for _, c := range []struct {
		name   string
		ingest []string
		cases  [][]string
	}{
		{"chaos", []string{"../../fixtures/chaos/gunluk.json"}, sparkAnalyses},
		{"peaks", []string{"../../fixtures/peaks/sekil1.csv"}, plainAnalyses()},
		{"retry", []string{"../../fixtures/retry/tiny.ndjson"}, plainAnalyses()},
		{"storm", []string{"../../fixtures/storm/tiny.ndjson"}, plainAnalyses()},
		{"k6", k6, sparkAnalyses},
		{"k6-options", k6, optionsOf(true)},
		{"access", []string{"../../ingest/testdata/real/access/nginx-observiq/input.log"}, sparkAnalyses},
		{"generated", []string{gen}, plainAnalyses()},
		{"generated-100k", []string{small}, optionsOf(false)},
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
			// the dataset named relative to the working folder: rewind makes
			// it absolute, or the cluster would look for it in its own
			wd, err := os.Getwd()
			if err != nil {
				t.Fatal(err)
			}
			rel, err := filepath.Rel(wd, ds)
			if err != nil || filepath.IsAbs(rel) {
				t.Fatalf("%s relative to %s: %q, %v", ds, wd, rel, err)
			}
			for _, a := range c.cases {
				args := append([]string{"analyze"}, a...)
				lo, le, lc := runArgs(append(args, "--db", db, "--format", "json"))
				so, se, sc := runArgs(append(args, "--spark", url, "--dataset", rel, "--format", "json"))
				if lo != so || lc != sc || firstLine(le) != firstLine(se) {
					t.Errorf("%v: locally exit %d\n%s%s\non Spark exit %d\n%s%s", a, lc, lo, le, sc, so, se)
				}
			}
		})
	}
}

// sparkAnalyses are the analyses that run on Spark, each in its plain form
// and with --by: every input of TestSparkSameAsLocal runs them.
var sparkAnalyses = [][]string{
	{"blast-radius"},
	{"peaks"},
	{"falsification"},
	{"stop-damage"},
	{"burn-rate", "--slo", "99.9%"},
	{"thresholds"},
	{"judge"},
	{"judge", "--by", "outcome"},
	{"gate", "--argo", "../../analyze/testdata/gate/generated/argo-5s.yaml", "--metric", "success-rate=ok_share,latency-p95=p95"},
	{"omission", "--expected-interval", "10ms"},
	{"retries"},
	{"amplification"},
	{"peaks", "--sliding"},
	{"peaks", "--by", "status_class"},
	{"peaks", "--sliding", "--by", "outcome,tagged"},
	{"retries", "--by", "outcome"},
	{"amplification", "--by", "status_class,tagged"},
	{"falsification", "--by", "status_class"},
	{"stop-damage", "--by", "outcome", "--window", "500ms", "--k", "1,3"},
	{"burn-rate", "--slo", "99%", "--rules", "1s/10s>2,5s/30s>1,100ms/2s>14.4", "--by", "outcome"},
}

// sparkOptions are the analyses' options on Spark (windows, metrics, rules,
// resolutions, the --by pairs): the inputs that run them are cheap on Spark.
var sparkOptions = [][]string{
	{"peaks", "--resolutions", "1ms,250ms,10s"},
	{"falsification", "--window", "25"},
	{"falsification", "--window", "1s", "--margins", "0,0.01"},
	{"stop-damage", "--window", "500ms", "--k", "1,3"},
	{"falsification", "--metric", "p95", "--window", "20"},
	{"falsification", "--metric", "error_rate", "--window", "2s", "--max", "5%"},
	{"stop-damage", "--metric", "mean", "--window", "1s", "--tolerance", "20%"},
	{"burn-rate", "--slo", "99%", "--rules", "1s/10s>2,5s/30s>1,100ms/2s>14.4"},
	{"burn-rate", "--slo", "95%", "--rules", "500ms/5s>1.5", "--step", "250ms", "--partial", "--period", "1h"},
	{"burn-rate", "--slo", "99%", "--rules", "1ns/1s>2"},
	{"thresholds", "--threshold", "http_req_duration: p(95)<300", "--threshold", "http_req_failed: rate<0.05", "--threshold", "http_reqs: count>100"},
	{"thresholds", "--threshold", "http_req_duration: med<=100", "--threshold", "http_req_duration: max<1000", "--threshold", "http_reqs: rate>5", "--every", "1s"},
	{"thresholds", "--threshold", "http_req_duration: p(99)<500", "--threshold", "http_req_failed: rate<0.02", "--abort-on-fail", "--delay-abort-eval", "3s"},
	{"thresholds", "--threshold", "http_req_duration: p(90)<50", "--threshold", "http_req_failed: rate<0.02", "--window", "5s"},
	{"thresholds", "--threshold", "http_req_duration: p(99.9)<80", "--threshold", "http_req_duration: min>5", "--window", "4s", "--sliding", "--every", "1s"},
	{"thresholds", "--threshold", "http_reqs: count>1", "--every", "1ns"},
	{"judge", "--step", "1s", "--metrics", "mean,p50,p99.9,max,error_rate,throughput", "--interval", "5s"},
	{"judge", "--step-requests", "50", "--metrics", "p90,ok_share", "--scores"},
	{"judge", "--by", "status_class,tagged", "--step", "1s", "--metrics", "p99,error_rate"},
	{"gate", "--flagger", "../../analyze/testdata/gate/generated/flagger-10s.yaml", "--role", "control"},
	{"gate", "--keptn", "../../analyze/testdata/gate/keptn/lighthouse-slo.yaml", "--metric", "request_latency_p95=p99,error_rate=error_rate", "--every", "2s"},
	{"omission", "--expected-interval", "1500ns"},
	{"omission", "--rate", "300/1s", "--window", "500ms"},
	{"omission", "--closed-loop"},
	{"retries", "--affected", "1s..1.3s"},
	{"amplification", "--tick", "250ms", "--fault", "1s..2s", "--normal-rate", "2"},
	{"amplification", "--runs", "nothing*"},
	{"peaks", "--sliding", "--resolutions", "1ms,250ms,10s"},
	{"falsification", "--by", "outcome,tagged", "--window", "25", "--metric", "p95"},
	{"stop-damage", "--by", "status_class,tagged", "--window", "20", "--metric", "error_rate", "--max", "5%"},
	{"peaks", "--sliding", "--by", "method"},
	{"judge", "--by", "method,status_class"},
	{"retries", "--by", "name"},
	{"burn-rate", "--slo", "95%", "--rules", "500ms/5s>1.5", "--step", "250ms", "--by", "status_class,method"},
	{"thresholds", "--threshold", "http_req_duration: avg<100", "--threshold", "http_req_failed: rate<0.05"},
	{"thresholds", "--threshold", "http_req_duration{expected_response:true}: avg<=80", "--window", "5s"},
}

// plainAnalyses are sparkAnalyses without their --by forms: the inputs
// whose groups say little (one outcome, or one status class) and the
// generated 1 M rows run these (CI time: the --by forms run on chaos, k6 and
// the access log here, and the --by options on k6 and the generated 100 k
// rows).
func plainAnalyses() [][]string {
	var out [][]string
	for _, a := range sparkAnalyses {
		if !slices.Contains(a, "--by") {
			out = append(out, a)
		}
	}
	return out
}

// sparkOnK6 are the analyses whose options run on k6's fixtures (its
// whole-second times and its own metric names); the others' options run on
// the generated log. Each option runs on one of the two (CI time: each case
// is a session of its own, and the options' edges are analyze's Spark
// tests').
var sparkOnK6 = map[string]bool{"thresholds": true, "burn-rate": true, "judge": true, "gate": true}

// optionsOf is sparkOptions of the analyses that run on k6's fixtures, or of
// the others.
func optionsOf(k6 bool) [][]string {
	var out [][]string
	for _, o := range sparkOptions {
		if sparkOnK6[o[0]] == k6 {
			out = append(out, o)
		}
	}
	return out
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
