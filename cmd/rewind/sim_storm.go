package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rewind-dev/rewind/sim/storm"
)

func init() {
	registerSim(simCommand{name: "storm", summary: "retry storm: retries multiplied across a call chain (seed 000)", run: runSimStorm})
}

const simStormUsage = `Usage: rewind sim storm [flags]

Runs the retry-storm tick model of seed 000: Poisson arrivals (97.22/s) in
10 ms ticks, a dependency that serves 6 calls per tick, exponential backoff
with full jitter (base 2, cap 32 ticks), and a three-layer chain whose attempts
multiply. Every configuration runs through every scenario from the same seed:

  healthy       the fault-free day, with a sparse failure share of 0.025
  outage        capacity 0 for 1 s from the fault start
  degradation   capacity 1 for 10 s from the fault start

It prints one table per scenario and, when all three ran, the seed's summary
lines and bounds. With --out it writes every call to a canonical NDJSON log
(experiment "storm", run "<config>|<scenario>") for rewind ingest; without
--out no log is written.

Examples:
  rewind sim storm
  rewind sim storm --out storm.ndjson && rewind ingest storm.ndjson
  rewind sim storm --scenarios outage --config "four layers=3,3,3,3@0.2"
  rewind sim storm --capacity 8 --fault-start 10s`

type simStormOptions struct {
	out        string
	faultStart time.Duration
	scenarios  []string
	configs    []string
	cfg        storm.Config
}

func simStormFlags(e *env) (*simStormOptions, func([]string) error) {
	o := &simStormOptions{cfg: storm.DefaultConfig()}
	p := &o.cfg.Params
	o.faultStart = time.Duration(p.FaultStart*p.TickMs) * time.Millisecond
	fs := newFlags(e, "sim storm", simStormUsage)
	fs.StringVar(&o.out, "out", "", "write the per-call log to `FILE` (- for stdout, the tables then go to stderr; default: no log)")
	fs.Int64Var(&p.Seed, "seed", p.Seed, "seed of the Lehmer generator")
	fs.IntVar(&p.Capacity, "capacity", p.Capacity, "calls the dependency serves per 10 ms tick when healthy")
	fs.DurationVar(&o.faultStart, "fault-start", o.faultStart, "when the fault window opens, a multiple of 10ms")
	fs.StringSliceVar(&o.scenarios, "scenarios", []string{"healthy", "outage", "degradation"},
		"scenarios to run, comma-separated")
	fs.StringArrayVar(&o.configs, "config", nil,
		"add a configuration `NAME=R,R,...[@BUDGET]`: attempts per layer, gateway first, and an optional\n"+
			"retry budget (extra calls per primary call); repeatable")
	return o, func(args []string) error { return parse(fs, args) }
}

// apply turns the flags that need parsing into the config.
func (o *simStormOptions) apply() error {
	p := &o.cfg.Params
	start, err := storm.Ticks(o.faultStart, p.TickMs)
	if err != nil {
		return usagef("--fault-start: %v", err)
	}
	p.FaultStart = start
	if o.cfg.Scenarios, err = storm.SelectScenarios(o.scenarios); err != nil {
		return usagef("--scenarios: %v", err)
	}
	for _, spec := range o.configs {
		pol, err := storm.ParsePolicy(spec)
		if err != nil {
			return fmt.Errorf("--config: %w", err)
		}
		o.cfg.Policies = append(o.cfg.Policies, pol)
	}
	return o.cfg.Validate()
}

func runSimStorm(ctx context.Context, e *env, args []string) error {
	o, parseArgs := simStormFlags(e)
	if err := parseArgs(args); err != nil {
		return err
	}
	if err := o.apply(); err != nil {
		return usageError{hinted{err, "rewind sim storm --help"}}
	}
	switch o.out {
	case "":
		return stormRun(ctx, e, o.cfg, nil)
	case "-":
		return stormRun(ctx, tablesToStderr(e), o.cfg, e.stdout)
	}
	f, err := os.Create(o.out)
	if err != nil {
		return fmt.Errorf("create log: %w", err)
	}
	if err := stormRun(ctx, e, o.cfg, f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write log %s: %w", o.out, err)
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", o.out)
	return nil
}

func stormRun(ctx context.Context, e *env, cfg storm.Config, log io.Writer) error {
	if err := storm.Run(ctx, cfg, e.stdout, log); err != nil {
		return fmt.Errorf("sim storm: %w", err)
	}
	return nil
}
