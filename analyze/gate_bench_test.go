package analyze_test

import (
	"testing"
	"time"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

const (
	benchArgo = `kind: AnalysisTemplate
spec:
  metrics:
  - name: success-rate
    interval: 30s
    failureLimit: 3
    successCondition: result[0] >= 0.5
    provider: {prometheus: {query: 'sum(rate(ok[1m])) / sum(rate(all[1m]))'}}
  - name: p95
    interval: 30s
    successCondition: result[0] < 100000
    provider: {prometheus: {query: 'histogram_quantile(0.95, rate(b[1m]))'}}
`
	benchFlagger = `kind: Canary
spec:
  analysis:
    interval: 30s
    threshold: 5
    maxWeight: 100
    stepWeight: 3
    metrics:
    - {name: request-success-rate, thresholdRange: {min: 1}, interval: 1m}
    - {name: request-duration, thresholdRange: {max: 100000}, interval: 1m}
`
	benchKeptn = `comparison: {compare_with: several_results, number_of_comparison_results: 3, aggregate_function: avg}
objectives:
  - {sli: p95, pass: [{criteria: ["<=+1000%"]}], warning: [{criteria: ["<100000"]}]}
  - {sli: errors, weight: 2, pass: [{criteria: ["<=1"]}]}
total_score: {pass: "90%", warning: "75%"}
`
)

// BenchmarkGate times `rewind analyze gate` warm on the analyses
// benchmark's log (REWIND_BENCH_ROWS, default 1 M; bench/gate.sh runs
// 10 M, some 16 minutes of test time): an Argo template of two metrics
// every 30 s over the last minute (overlapping windows), a Flagger canary
// of the two built-ins every 30 s, a Keptn slo.yaml every minute. Each
// reports its median (median-s).
func BenchmarkGate(b *testing.B) {
	db := benchDB(b, benchRows())
	run := func(kind, yaml string) func() error {
		return func() error {
			o := analyze.GateOptions{Experiment: "bench", Kind: kind, File: kind + ".yaml", Data: []byte(yaml), Every: time.Minute,
				Metrics: map[string]string{"success-rate": "ok_share", "p95": "p95", "errors": "error_rate"}}
			_, _, err := analyze.Gate(store.Querier(db), o)
			return err
		}
	}
	b.Run("argo", func(b *testing.B) { timeWarm(b, run("argo", benchArgo)) })
	b.Run("flagger", func(b *testing.B) { timeWarm(b, run("flagger", benchFlagger)) })
	b.Run("keptn", func(b *testing.B) { timeWarm(b, run("keptn", benchKeptn)) })
}
