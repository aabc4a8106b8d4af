package main

import (
	"context"
	"errors"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

const omissionUsage = `Usage: rewind analyze omission [flags]

Coordinated omission read from the log. For a constant-rate log (Vegeta's
seq with its rate; any log whose req numbers the sends, with --rate),
request req of a run was meant to start at t0 + req / rate: per run and
quantile (p50, p90, p95, p99, p99.9, max) the recorded latency beside the
corrected one (from the intended start: latency + lag) and the schedule
lag; then per window (--window) the sends expected, sent, the deficit
(expected - sent) and the backlog. Vegeta files do not record the rate:
without --rate it is inferred per run (the median gap between consecutive
seq) and the note says so. For k6's arrival-rate executors, the dropped
iterations per window. For a closed loop, --closed-loop or
--expected-interval: HdrHistogram's expected-interval back-fill, a bound.
A log that cannot tell is refused (exit 1). docs/omission.md has every rule.

Columns: run, quantile, requests, interval_ms, inferred, latency_ms,
corrected_ms, lag_ms; then run, window, from_ms, expected, sent, deficit,
backlog, max_lag_ms. --requests: run, req, start_ms, intended_ms, lag_ms,
latency_ms, corrected_ms. Back-fill: run, quantile, requests, added,
interval_ms, derived, latency_ms, bound_ms.

Examples:
  rewind analyze omission --rate 10/1s
  rewind analyze omission --rate 50 --window 5s --requests
  rewind analyze omission --closed-loop
  rewind analyze omission --expected-interval 100ms`

func init() {
	registerAnalysis(analysisCommand{name: "omission", summary: "coordinated omission: schedule lag, deficit, corrected percentiles, HdrHistogram back-fill", run: runOmission})
}

func runOmission(ctx context.Context, e *env, args []string) error {
	var o analyze.OmissionOptions
	var rate, window, expected string
	a, fs := newAnalysis(e, "omission", omissionUsage, &o.Experiment)
	fs.StringVar(&rate, "rate", "", "the constant rate it was sent at, `N/DURATION` or N per second (default: inferred for Vegeta)")
	fs.StringVar(&window, "window", "1s", "deficit windows `DURATION`")
	fs.BoolVar(&o.Requests, "requests", false, "print each request's intended start, lag and corrected latency instead")
	fs.BoolVar(&o.ClosedLoop, "closed-loop", false, "HdrHistogram's back-fill with the expected interval derived per run")
	fs.StringVar(&expected, "expected-interval", "", "HdrHistogram's back-fill with this expected interval `DURATION`")
	if err := a.parse(args); err != nil {
		return err
	}
	if err := omissionOptions(&o, rate, window, expected); err != nil {
		return err
	}
	a.eng.remote = func(r *analyze.Remote) (*analyze.Result, *analyze.Result, error) { return analyze.OmissionOn(r, o) }
	err := a.runTwo(ctx, func(q store.Querier) (*analyze.Result, *analyze.Result, error) {
		return analyze.Omission(q, o) // the quantiles, then the windows
	})
	if errors.Is(err, analyze.ErrCannotTell) {
		return hinted{err, "rewind analyze omission --rate 10/1s  (or --closed-loop)"}
	}
	return err
}

func omissionOptions(o *analyze.OmissionOptions, rate, window, expected string) error {
	var err error
	if rate != "" {
		if o.Interval, err = analyze.ParseRate(rate); err != nil {
			return usagef("--%v", err)
		}
	}
	if o.Window, err = positiveDuration("window", window); err != nil {
		return err
	}
	if o.Expected, err = optionalDuration("expected-interval", expected); err != nil {
		return err
	}
	if (o.Expected > 0 || o.ClosedLoop) && (rate != "" || o.Requests) {
		return usagef("--closed-loop and --expected-interval back-fill a closed loop: they do not take --rate or --requests")
	}
	return nil
}
