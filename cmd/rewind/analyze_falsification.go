package main

import (
	"context"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

const falsUsage = `Usage: rewind analyze falsification [flags]

The steady-state hypothesis "every window keeps an ok share of at least
baseline - margin", swept over margins. The baseline is the mean of the
control run's per-window ok shares; a window below the threshold is
falsified (decided exactly: a tie does not falsify). Columns: margin,
baseline, control_falsified, control_windows, experiment_falsified,
experiment_windows, first_falsified_window (control = the baseline side,
experiment = the treatment side). With --by, the same per group, each
group read as a log of its own: its own windows and baseline (docs/by.md).

` + hypothesisHelp + `

With --tolerance, --max or --min (comma-separated values are swept; latency
and throughput sweep 0%,10%,20%,50% by default) the first column is that
flag's value as given, followed by baseline and threshold in the metric's
unit; notes on stderr state the sides and each threshold exactly.

Examples:
  rewind analyze falsification
  rewind analyze falsification --window 40 --margins 0,0.05,0.1,0.2 --format csv
  rewind analyze falsification --control baseline --treatment canary --metric p95 --window 30s --tolerance 10%,20%,50%
  rewind analyze falsification --treatment canary --baseline-until 2m --metric p95 --window 30s
  rewind analyze falsification --metric error_rate --max 1% --window 30s
  rewind analyze falsification --control baseline --treatment canary --window 30s --by name`

func init() {
	registerAnalysis(analysisCommand{name: "falsification", summary: "steady-state hypothesis swept over margins", run: runFalsification})
}

func runFalsification(ctx context.Context, e *env, args []string) error {
	var o analyze.FalsificationOptions
	a, fs := newWindowedAnalysis(e, "falsification", falsUsage, &o.Experiment, &o.Window)
	fs.String("margins", "0,0.05,0.10,0.20", "margins to sweep, as shares") // a threshold form: hyp.read reads it
	a.addHypothesis(true, &o.By)
	if err := a.parse(args); err != nil {
		return err
	}
	var err error
	if o.Hypothesis, o.Bounds, err = a.hyp.read("margins", true); err != nil {
		return err
	}
	a.eng.remote = one(func(r *analyze.Remote) (*analyze.Result, error) { return analyze.FalsificationOn(r, o) })
	return a.run(ctx, func(q store.Querier) (*analyze.Result, error) {
		return analyze.Falsification(q, o)
	})
}
