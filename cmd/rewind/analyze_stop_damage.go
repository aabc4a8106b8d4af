package main

import (
	"context"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

const stopUsage = `Usage: rewind analyze stop-damage [flags]

The stop criterion "stop after k consecutive falsified windows", swept
over k: the window where the experiment stops and the damage until then.
Damage is tagged treatment requests not ok; when the treatment side has no
tagged request, every treatment request not ok (a note says so). Columns:
k, stop_window, damage_until_stop, extra_over_k1, total_damage. With --by,
the same per group, each group read as a log of its own: its own windows,
baseline and streaks (docs/by.md).

` + hypothesisHelp + `

The threshold is one value: --margin (default: the stored margin, else
0.10), or --tolerance (default 20% for latency and throughput), --max or
--min.

Examples:
  rewind analyze stop-damage
  rewind analyze stop-damage --margin 0.05 --k 1,2,3 --format json
  rewind analyze stop-damage --control baseline --treatment canary --metric p95 --window 30s --tolerance 20%
  rewind analyze stop-damage --metric p99 --max 800ms --window 30s
  rewind analyze stop-damage --window 20 --by status_class`

func init() {
	registerAnalysis(analysisCommand{name: "stop-damage", summary: "damage before a k-consecutive-window stop, swept over k", run: runStopDamage})
}

func runStopDamage(ctx context.Context, e *env, args []string) error {
	var o analyze.StopDamageOptions
	var ks string
	a, fs := newWindowedAnalysis(e, "stop-damage", stopUsage, &o.Experiment, &o.Window)
	fs.Float64Var(&o.Margin, "margin", hypothesis.DefaultMargin, "margin below the baseline, as a share")
	fs.StringVar(&ks, "k", "1,2,3,4", "consecutive falsified windows that stop the experiment")
	a.addHypothesis(false, &o.By)
	if err := a.parse(args); err != nil {
		return err
	}
	var err error
	if o.Ks, err = intList("k", ks); err != nil {
		return err
	}
	for _, k := range o.Ks {
		if k < 1 {
			return usagef("--k %d: want 1 or more consecutive windows", k)
		}
	}
	var bounds []hypothesis.Bound
	if o.Hypothesis, bounds, err = a.hyp.read("margin", false); err != nil {
		return err
	}
	if len(bounds) == 1 {
		o.Bound = &bounds[0]
	}
	o.MarginSet = fs.Changed("margin")
	a.eng.remote = one(func(r *analyze.Remote) (*analyze.Result, error) { return analyze.StopDamageOn(r, o) })
	return a.run(ctx, func(q store.Querier) (*analyze.Result, error) {
		return analyze.StopDamage(q, o)
	})
}
