package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

const gateUsage = `Usage: rewind analyze gate (--argo FILE | --flagger FILE | --keptn FILE) [flags]

Replays your own canary gate definition over the recorded log: when would
the controller have promoted or rolled back, and how many requests were hurt
before it did?

  --argo FILE     an Argo Rollouts AnalysisTemplate or ClusterAnalysisTemplate
                  (other documents in the file, such as the Rollout, are skipped):
                  each metric measured at the start (after initialDelay), then
                  every interval (10s after an error) until count; success and
                  failure conditions evaluated with expr, as Argo does, result
                  bound to the measured value (a one-element vector for a
                  Prometheus query, empty when the window has no data);
                  failureLimit, inconclusiveLimit, consecutiveErrorLimit,
                  consecutiveSuccessLimit and the run's worst phase as Argo's
                  analysis controller assesses them.
  --flagger FILE  a Flagger Canary (spec.analysis): every interval, the
                  failedChecks threshold (rollback), then the checks over the
                  last metric interval (request-success-rate in percent,
                  request-duration the p99 in whole ms, thresholdRange min/max),
                  then the step: weights up to maxWeight, or iterations (A/B
                  testing, blue/green), then the promotion.
  --keptn FILE    a Keptn slo.yaml: one evaluation per --every window; pass and
                  warning criteria ("<=800", "<=+10%" relative to the previous
                  evaluations as compare_with, include_result_with_score and
                  aggregate_function choose them), weights, key SLIs and the
                  total_score percentages, as Keptn's lighthouse scores them.

A measurement reads the requests in [at - window, at) of test time (t_ms):
the window is an Argo Prometheus query's first range selector ([5m]), else
its interval, else everything since the start; Flagger's metric interval
(default 1m); the Keptn evaluation window. Rows: those with role experiment
when the log has them, else every row (--role picks).

There is no Prometheus: a metric that is not built in is bound to a rewind
metric with --metric NAME=METRIC, where METRIC is one of requests, ok_share,
error_rate (shares), ok_percent, error_percent (percent), throughput (req/s),
mean, p50, p90, p95, p99, p99.9, max (ms, nearest rank). Thresholds are
decided exactly (Flagger and Keptn in rationals; Argo's expr compares the
double nearest to the exact value). docs/gate.md has every rule, its source,
and what differs from the live controllers.

Columns: evaluation, at_ms, metric, from_ms, until_ms, requests, value,
result, state. Then the decision: gate, decision, at_ms, evaluations,
requests_before, not_ok_before (requests before the decision, and those not
answered ok), reason.

Examples:
  rewind analyze gate --argo analysis-template.yaml --metric success-rate=ok_share
  rewind analyze gate --flagger canary.yaml --start 30s
  rewind analyze gate --keptn slo.yaml --every 10s --metric response_time_p95=p95,error_rate=error_percent`

func init() {
	registerAnalysis(analysisCommand{name: "gate", summary: "replay an Argo Rollouts, Flagger or Keptn canary gate over the log: when it would have promoted or rolled back", run: runGate})
}

func runGate(ctx context.Context, e *env, args []string) error {
	var argo, flagger, keptn, metrics, start, until, every string
	var o analyze.GateOptions
	a, fs := newAnalysis(e, "gate", gateUsage, &o.Experiment)
	fs.StringVar(&argo, "argo", "", "an Argo Rollouts AnalysisTemplate `FILE`")
	fs.StringVar(&flagger, "flagger", "", "a Flagger Canary `FILE`")
	fs.StringVar(&keptn, "keptn", "", "a Keptn slo.yaml `FILE`")
	fs.StringVar(&metrics, "metric", "", "bind gate metrics to rewind metrics: `NAME=METRIC,...`")
	fs.StringVar(&o.Role, "role", "", "read the rows of this `ROLE` (default: experiment when the log has it, else every row)")
	fs.StringVar(&start, "start", "", "test time `DURATION` the analysis starts at (default 0)")
	fs.StringVar(&until, "until", "", "test time `DURATION` the replay ends at (default: the last t_ms, rounded up to a second)")
	fs.StringVar(&every, "every", "1m", "Keptn: the evaluation window `DURATION`")
	if err := a.parse(args); err != nil {
		return err
	}
	var given []string
	for k, f := range map[string]string{"argo": argo, "flagger": flagger, "keptn": keptn} {
		if f != "" {
			o.Kind, o.File = k, f
			given = append(given, "--"+k)
		}
	}
	if len(given) != 1 {
		return usagef("give one gate definition: --argo FILE, --flagger FILE or --keptn FILE")
	}
	var err error
	if o.Data, err = os.ReadFile(o.File); err != nil {
		return fmt.Errorf("read gate definition: %w", err)
	}
	if o.Metrics, err = bindings(metrics); err != nil {
		return err
	}
	if o.Start, err = optionalDuration("start", start); err != nil {
		return err
	}
	if o.Until, err = optionalDuration("until", until); err != nil {
		return err
	}
	if o.Every, err = positiveDuration("every", every); err != nil {
		return err
	}
	a.eng.remote = func(r *analyze.Remote) (*analyze.Result, *analyze.Result, error) { return analyze.GateOn(r, o) }
	return a.runTwo(ctx, func(q store.Querier) (*analyze.Result, *analyze.Result, error) {
		return analyze.Gate(q, o) // the measurements, then the decision
	})
}

// bindings reads NAME=METRIC,... (a name may hold any character but = and ,).
func bindings(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range splitList(s) {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" || v == "" {
			return nil, usagef("--metric %q: want NAME=METRIC,... such as success-rate=ok_share", s)
		}
		out[k] = v
	}
	return out, nil
}
