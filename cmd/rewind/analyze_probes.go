package main

import (
	"context"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

const probesUsage = `Usage: rewind analyze probes [flags]

What each health-probe setting did, recomputed from a log that rewind sim
probes wrote: one row per setting, in log order. Columns: setting, restarts
(by the liveness or startup probe; planned ones do not count),
unnecessary_restarts (of a replica that was not stuck), killed_during_startup
(of a replica still starting), in_restart_loop (replicas restarted 3 times or
more), early_errors (requests sent to a starting replica), errors,
in_service (mean healthy replicas per round) and detection_rounds (rounds
each stuck replica went unnoticed, in order of detection).

Examples:
  rewind sim probes --sweep --out probes.ndjson && rewind ingest probes.ndjson
  rewind analyze probes
  rewind analyze probes --format json`

func init() {
	registerAnalysis(analysisCommand{name: "probes", summary: "restarts, errors and capacity per health-probe setting", run: runProbes})
}

func runProbes(ctx context.Context, e *env, args []string) error {
	var o analyze.ProbesOptions
	a, _ := newAnalysis(e, "probes", probesUsage, &o.Experiment)
	if err := a.parse(args); err != nil {
		return err
	}
	return a.run(ctx, func(q store.Querier) (*analyze.Result, error) {
		return analyze.Probes(q, o)
	})
}
