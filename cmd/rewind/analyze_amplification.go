package main

import (
	"context"
	"time"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/sim/storm"
	"github.com/rewind-dev/rewind/store"
)

// The retry storm's analyses: amplification (from the log) and bounds (from
// the policy alone).

func init() {
	registerAnalysis(analysisCommand{name: "amplification", summary: "calls retries add per run, peak and fault-window rate",
		run: runAmplification})
	registerAnalysis(analysisCommand{name: "bounds", summary: "worst case a retry chain allows: r^d calls, longest wait",
		run: runBounds})
}

const ampUsage = `Usage: rewind analyze amplification [flags]

How much retries multiplied the calls a dependency saw, one row per run, in
log order. It reads only the log: requests are attempt-0 rows, every row is
a call. Columns: run, allowed, requests, calls, multiplier (calls /
requests), peak_calls_per_tick, succeeded, dropped (failed and not retried),
window_calls_per_tick (calls sent in the fault window / its ticks) and
x_normal (that rate / the normal rate).

--tick, --fault and --normal-rate default to each run's stored params
(tick_ms, fault_from_ms, fault_to_ms, normal_rate), then the experiment's;
a flag overrides them for every run. A column whose inputs are unknown is
empty: a run with no fault window has no window rate. --by gives the same
per run and group (docs/by.md).

Examples:
  rewind sim storm --out storm.ndjson && rewind ingest storm.ndjson
  rewind analyze amplification
  rewind analyze amplification --runs '*kesinti*' --format csv
  rewind analyze amplification --tick 10ms --fault 5s..6s --normal-rate 0.9722
  rewind analyze amplification --by status_class`

func runAmplification(ctx context.Context, e *env, args []string) error {
	var o analyze.AmplificationOptions
	var tick time.Duration
	var fault string
	a, fs := newAnalysis(e, "amplification", ampUsage, &o.Experiment)
	fs.StringVar(&o.Runs, "runs", "", "only runs whose name matches this `GLOB` (default: all)")
	fs.DurationVar(&tick, "tick", 0, "tick length, e.g. 10ms (default: the stored tick_ms)")
	fs.StringVar(&fault, "fault", "", "fault window `FROM..TO`, e.g. 5s..6s, 5000ms..6000ms or plain ms 5000..6000 (default: the stored one)")
	fs.Float64Var(&o.NormalRate, "normal-rate", 0, "normal arrivals in `CALLS_PER_TICK` (default: the stored normal_rate)")
	addBy(fs, &o.By)
	if err := a.parse(args); err != nil {
		return err
	}
	if fs.Changed("tick") && tick <= 0 {
		return usagef("--tick %v: want a positive duration such as 10ms", tick)
	}
	o.TickMs = float64(tick) / float64(time.Millisecond)
	if fs.Changed("normal-rate") && o.NormalRate <= 0 {
		return usagef("--normal-rate %v: want a positive number of calls per tick", o.NormalRate)
	}
	if fault != "" {
		span, err := hypothesis.ParseSpan(fault)
		if err != nil {
			return usagef("--fault: %v", err)
		}
		o.Fault = span
	}
	a.eng.remote = one(func(r *analyze.Remote) (*analyze.Result, error) { return analyze.AmplificationOn(r, o) })
	return a.run(ctx, func(q store.Querier) (*analyze.Result, error) {
		return analyze.Amplification(q, o)
	})
}

const boundsUsage = `Usage: rewind analyze bounds [flags]

The worst case a retry chain allows, whatever the run: one row per depth,
the gateway alone, then each layer added. d layers that try r times allow
r^d calls per request (allowed); a request that uses them all can wait, in
the worst case, one tick per attempt plus the full backoff ceiling
min(cap, base*2^n) after attempt n (worst_wait_ticks, worst_wait_s, and
x_threshold: that wait / the caller's threshold). span_ticks is the longest
time from the first attempt to the last. Reads no database.

Examples:
  rewind analyze bounds
  rewind analyze bounds --layers 3,3,3,3
  rewind analyze bounds --layers 2,3 --base 1 --cap 16 --tick 5ms --threshold 50 --format json`

// maxAllowed keeps the worst-case sum, which walks every allowed attempt,
// quick; with maxCap it also keeps the sum far from overflowing.
const (
	maxAllowed = 1_000_000
	maxCap     = 1 << 30
)

func runBounds(_ context.Context, e *env, args []string) error {
	var d dbFlags
	var layers string
	cfg := storm.DefaultConfig() // the seed's backoff, tick and read threshold
	b, threshold := cfg.Params.Backoff, cfg.ReadThresholdTicks
	tick := time.Duration(cfg.Params.TickMs) * time.Millisecond
	fs := newFlags(e, "analyze bounds", boundsUsage)
	fs.StringVar(&layers, "layers", "3,3,3", "attempts per layer, gateway first")
	fs.IntVar(&b.Base, "base", b.Base, "backoff ceiling after the first attempt, in ticks")
	fs.IntVar(&b.Cap, "cap", b.Cap, "largest backoff ceiling, in ticks")
	fs.DurationVar(&tick, "tick", tick, "tick length, a whole number of ms")
	fs.IntVar(&threshold, "threshold", threshold, "ticks after which the caller gives up")
	fs.StringVarP(&d.format, "format", "f", "table", formatHelp)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := d.checkFormat(); err != nil {
		return err
	}
	chain, err := boundsLayers(layers)
	if err != nil {
		return err
	}
	tickMs, err := storm.Ticks(tick, 1) // whole milliseconds
	if err != nil || tickMs == 0 {
		return usagef("--tick %v: want a positive whole number of ms", tick)
	}
	if b.Base < 1 || b.Cap < b.Base || b.Cap > maxCap || threshold < 1 {
		return usagef("--base %d --cap %d --threshold %d: want 1 <= base <= cap <= %d and a threshold of 1 tick or more",
			b.Base, b.Cap, threshold, maxCap)
	}
	res := analyze.Bounds(chain, func(c []int) analyze.BoundRow {
		w := storm.Bounds(c, b, tickMs, threshold)
		return analyze.BoundRow{Allowed: w.Allowed, WorstWaitTicks: w.WorstWaitTicks,
			WorstWaitSeconds: w.WorstWaitSeconds, ThresholdRatio: w.ThresholdRatio, SpanTicks: w.SpanTicks}
	})
	return printResult(e, res, d.format)
}

// boundsLayers parses --layers and keeps the product within maxAllowed.
func boundsLayers(s string) ([]int, error) {
	list, err := intList("layers", s)
	if err != nil {
		return nil, err
	}
	chain, allowed := make([]int, len(list)), int64(1)
	for i, r := range list {
		if r < 1 {
			return nil, usagef("--layers %q: every layer tries at least once", s)
		}
		if r > maxAllowed/allowed {
			return nil, usagef("--layers %q: allows more than %d calls per request", s, maxAllowed)
		}
		allowed *= r
		chain[i] = int(r)
	}
	return chain, nil
}
