package main

import (
	"context"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

const burnRateUsage = `Usage: rewind analyze burn-rate --slo PERCENT [flags]

Multi-window, multi-burn-rate SLO alerts replayed over each run: for each
rule SHORT/LONG>FACTOR, the first moment both windows burn the error budget
faster than FACTOR (bad share over the window / (1 - SLO), decided exactly),
and what was lost before. Default rules: the SRE workbook's 5m/1h>14.4,
30m/6h>6 and 6h/3d>1. A request counts when it ends; it is good when
outcome = 'ok', or when --good says so (one SQL boolean over the request
columns). Rules are evaluated at every moment a window's content changes
(the first firing in continuous time), or every --step. A rule whose long
window is longer than the run cannot fire (--partial evaluates windows that
reach before the start).

Columns: run, rule, fired_at_ms (test time since the run's first request),
short_burn, long_burn (then), requests_before, failed_before (bad requests
ended by then), budget_consumed (share of the --period's error budget at the
run's mean request rate), failed_total, note. With --by, the same per run
and group, each group read as a log of its own (docs/by.md).

Examples:
  rewind analyze burn-rate --slo 99.9%
  rewind analyze burn-rate --slo 99% --rules '1m/10m>10,5m/30m>2' --format csv
  rewind analyze burn-rate --slo 99.5% --good "latency_ms < 300 AND outcome = 'ok'" --rules '30s/5m>14.4'
  rewind analyze burn-rate --slo 99% --rules '1s/10s>2' --by name`

func init() {
	registerAnalysis(analysisCommand{name: "burn-rate", summary: "multi-window burn-rate SLO alerts replayed: when each fires, the damage before", run: runBurnRate})
}

func runBurnRate(ctx context.Context, e *env, args []string) error {
	var o analyze.BurnRateOptions
	var slo, rules, period, step string
	a, fs := newAnalysis(e, "burn-rate", burnRateUsage, &o.Experiment)
	fs.StringVar(&slo, "slo", "", "the SLO: the share of good requests, `PERCENT` such as 99.9% (or 0.999)")
	fs.StringVar(&rules, "rules", "", "alerting rules `SHORT/LONG>FACTOR,...` (default: 5m/1h>14.4,30m/6h>6,6h/3d>1)")
	fs.StringVar(&o.Good, "good", "", "a SQL boolean over request columns that makes a request good (default: outcome = 'ok')")
	fs.StringVar(&period, "period", "30d", "the SLO period the error budget is counted over")
	fs.StringVar(&step, "step", "", "evaluate every `DURATION` of test time (default: at every change)")
	fs.BoolVar(&o.Partial, "partial", false, "evaluate windows that reach before the run's start")
	addBy(fs, &o.By)
	if err := a.parse(args); err != nil {
		return err
	}
	if slo == "" {
		return usagef("--slo is required, e.g. --slo 99.9%%")
	}
	var err error
	if o.SLO, o.Rules, err = burnRules(slo, rules); err != nil {
		return err
	}
	if o.Period, err = positiveDuration("period", period); err != nil {
		return err
	}
	if o.Step, err = optionalDuration("step", step); err != nil {
		return err
	}
	a.eng.remote = one(func(r *analyze.Remote) (*analyze.Result, error) { return analyze.BurnRateOn(r, o) })
	return a.run(ctx, func(q store.Querier) (*analyze.Result, error) {
		return analyze.BurnRate(q, o)
	})
}
