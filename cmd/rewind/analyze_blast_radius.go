package main

import (
	"context"
	"fmt"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

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
}

func runBlastRadius(ctx context.Context, e *env, args []string) error {
	var o analyze.BlastRadiusOptions
	a, fs := newAnalysis(e, "blast-radius", blastUsage, &o.Experiment)
	fs.StringVar(&o.Planned, "planned", "", "the plan: a SQL boolean over request columns (default: the stored 'planned')")
	fs.Int64Var(&o.Start, "start", 0, "position in the experiment run where the experiment starts (default: the stored 'start')")
	var save bool
	fs.BoolVar(&save, "save", false, "store --planned with the experiment (the default of later analyses and reports)")
	if err := a.parse(args); err != nil {
		return err
	}
	if save && o.Planned == "" {
		return usagef("--save stores --planned: give --planned too")
	}
	o.StartSet = fs.Changed("start")
	a.eng.remote = one(func(r *analyze.Remote) (*analyze.Result, error) { return analyze.BlastRadiusOn(r, o) })
	if save {
		if err := a.d.noDataset("--save"); err != nil {
			return err
		}
	}
	err := a.run(ctx, func(q store.Querier) (*analyze.Result, error) {
		return analyze.BlastRadius(q, o)
	})
	if err != nil || !save {
		return err
	}
	// Only a predicate that just ran (and so passed its checks) is stored.
	db, err := a.d.opts.open(ctx, a.d.db, true)
	if err != nil {
		return err
	}
	defer db.Close()
	name, err := store.SaveParam(ctx, db, o.Experiment, "planned", o.Planned)
	if err == nil {
		fmt.Fprintf(e.stderr, "saved: planned = %s, with experiment %s\n", o.Planned, name)
	}
	return err
}
