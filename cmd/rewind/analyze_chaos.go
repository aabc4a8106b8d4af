package main

import (
	"context"
	"fmt"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// The chaos experiment's analyses: blast-radius, falsification, stop-damage.

const blastUsage = `Usage: rewind analyze blast-radius [flags]

Planned blast radius (the share of users the plan tags) against the
measured one (the requests the injection reached), counted over the
experiment run from --start on. Columns: planned, measured, window_requests,
multiplier (measured / planned), damaged, control_damaged, control_requests.

--save stores --planned with the experiment, so later analyses and
'rewind report' use it without being told again.

Examples:
  rewind analyze blast-radius --planned 'tag_hash(20260731, req) < 0.05'
  rewind analyze blast-radius --planned 'tag_hash(20260731, req) < 0.05' --save
  rewind analyze blast-radius --start 200 --format json`

func init() {
	registerAnalysis(analysisCommand{name: "blast-radius", summary: "planned vs measured blast radius", run: runBlastRadius})
	registerAnalysis(analysisCommand{name: "falsification", summary: "steady-state hypothesis swept over margins", run: runFalsification})
	registerAnalysis(analysisCommand{name: "stop-damage", summary: "damage before a k-consecutive-window stop, swept over k", run: runStopDamage})
}

func runBlastRadius(ctx context.Context, e *env, args []string) error {
	var d dbFlags
	var o analyze.BlastRadiusOptions
	fs := newFlags(e, "analyze blast-radius", blastUsage)
	d.add(fs, true)
	fs.StringVar(&o.Planned, "planned", "", "the plan: a SQL boolean over request columns (default: the stored 'planned')")
	fs.Int64Var(&o.Start, "start", 0, "position in the experiment run where the experiment starts (default: the stored 'start')")
	var save bool
	fs.BoolVar(&save, "save", false, "store --planned with the experiment (the default of later analyses and reports)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if save && o.Planned == "" {
		return usagef("--save stores --planned: give --planned too")
	}
	o.StartSet = fs.Changed("start")
	o.Experiment = d.experiment
	err := runAnalysis(ctx, e, &d, "rewind analyze blast-radius", func(q store.Querier) (*analyze.Result, error) {
		return analyze.BlastRadius(q, o)
	})
	if err != nil || !save {
		return err
	}
	// Only a predicate that just ran (and so passed its checks) is stored.
	db, err := d.opts.open(ctx, d.db, true)
	if err != nil {
		return err
	}
	defer db.Close()
	name, err := store.SaveParam(ctx, db, d.experiment, "planned", o.Planned)
	if err == nil {
		fmt.Fprintf(e.stderr, "saved: planned = %s, with experiment %s\n", o.Planned, name)
	}
	return err
}

const falsUsage = `Usage: rewind analyze falsification [flags]

The steady-state hypothesis "every window keeps an ok share of at least
baseline - margin", swept over margins. The baseline is the mean of the
control run's per-window ok shares; a window below the threshold is
falsified (decided exactly: a tie does not falsify). Columns: margin,
baseline, control_falsified, control_windows, experiment_falsified,
experiment_windows, first_falsified_window (control = the baseline side,
experiment = the treatment side).

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
  rewind analyze falsification --metric error_rate --max 1% --window 30s`

func runFalsification(ctx context.Context, e *env, args []string) error {
	var d dbFlags
	var h hypothesisFlags
	var o analyze.FalsificationOptions
	var window, margins string
	fs := newFlags(e, "analyze falsification", falsUsage)
	d.add(fs, true)
	fs.StringVar(&window, "window", "", "window: requests (40) or a duration (1s) (default: the stored window)")
	fs.StringVar(&margins, "margins", "0,0.05,0.10,0.20", "margins to sweep, as shares")
	h.add(fs, true, false)
	if err := parse(fs, args); err != nil {
		return err
	}
	var err error
	if o.Window, err = windowFlag(window); err != nil {
		return err
	}
	if o.Hypothesis, err = h.hypothesis(); err != nil {
		return err
	}
	if o.Bounds, err = h.bounds("margins", true); err != nil {
		return err
	}
	o.Experiment = d.experiment
	return runAnalysis(ctx, e, &d, "rewind analyze falsification", func(q store.Querier) (*analyze.Result, error) {
		return analyze.Falsification(q, o)
	})
}

const stopUsage = `Usage: rewind analyze stop-damage [flags]

The stop criterion "stop after k consecutive falsified windows", swept
over k: the window where the experiment stops and the damage until then.
Damage is tagged treatment requests not ok; when the treatment side has no
tagged request, every treatment request not ok (a note says so). Columns:
k, stop_window, damage_until_stop, extra_over_k1, total_damage.

` + hypothesisHelp + `

The threshold is one value: --margin (default: the stored margin, else
0.10), or --tolerance (default 20% for latency and throughput), --max or
--min.

Examples:
  rewind analyze stop-damage
  rewind analyze stop-damage --margin 0.05 --k 1,2,3 --format json
  rewind analyze stop-damage --control baseline --treatment canary --metric p95 --window 30s --tolerance 20%
  rewind analyze stop-damage --metric p99 --max 800ms --window 30s`

func runStopDamage(ctx context.Context, e *env, args []string) error {
	var d dbFlags
	var h hypothesisFlags
	var o analyze.StopDamageOptions
	var window, ks string
	fs := newFlags(e, "analyze stop-damage", stopUsage)
	d.add(fs, true)
	fs.StringVar(&window, "window", "", "window: requests (40) or a duration (1s) (default: the stored window)")
	fs.Float64Var(&o.Margin, "margin", hypothesis.DefaultMargin, "margin below the baseline, as a share")
	fs.StringVar(&ks, "k", "1,2,3,4", "consecutive falsified windows that stop the experiment")
	h.add(fs, false, false)
	if err := parse(fs, args); err != nil {
		return err
	}
	var err error
	if o.Window, err = windowFlag(window); err != nil {
		return err
	}
	if o.Ks, err = intList("k", ks); err != nil {
		return err
	}
	for _, k := range o.Ks {
		if k < 1 {
			return usagef("--k %d: want 1 or more consecutive windows", k)
		}
	}
	if o.Hypothesis, err = h.hypothesis(); err != nil {
		return err
	}
	bounds, err := h.bounds("margin", false)
	if err != nil {
		return err
	}
	if len(bounds) == 1 {
		o.Bound = &bounds[0]
	}
	o.MarginSet = fs.Changed("margin")
	o.Experiment = d.experiment
	return runAnalysis(ctx, e, &d, "rewind analyze stop-damage", func(q store.Querier) (*analyze.Result, error) {
		return analyze.StopDamage(q, o)
	})
}

// runAnalysis opens the database read-only, runs fn and prints its result.
func runAnalysis(ctx context.Context, e *env, d *dbFlags, cmd string, fn func(store.Querier) (*analyze.Result, error)) error {
	if err := d.checkFormat(); err != nil {
		return err
	}
	db, err := d.openRead(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := fn(store.WithContext(ctx, db))
	if err != nil {
		return explain(err, cmd)
	}
	return printResult(e, res, d.format)
}
