package main

import (
	"context"
	"time"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

const changesUsage = `Usage: rewind analyze changes [flags]

When did the service change? Each run's error rate, latency p50, p95 and
p99, and throughput per interval, cut into segments where each changes
(PELT with a penalty, docs/analyses/changes.md): one row per segment, from
from_ms to until_ms (and from_ts, until_ts when the log has dates), its
value, the value of the segment before, the change and its direction, and
lr, how much better two segments explain the data than one (a likelihood
ratio statistic), against the penalty a change must beat. A series with
no change is one segment. The error rate is errors among requests with an
outcome (binomial); a latency quantile changes where the share of requests
slower than the run's own quantile does (binomial; the value shown is the
median of the intervals' quantiles); throughput is requests a second
(Poisson), without the run's first and last intervals, which it only
partly covers. A run too short or too sparse to tell says so in a note.

The interval is chosen from the log's rate (about 200 requests an interval
in the busiest run, never finer than the log's times); --interval chooses
another. --by gives the changes per run and group (docs/by.md).

Examples:
  rewind analyze changes
  rewind analyze changes --interval 500ms --format csv
  rewind analyze changes --penalty 20 --min-segment 5
  rewind analyze changes --by status_class`

func init() {
	registerAnalysis(analysisCommand{name: "changes", summary: "when error rate, latency and throughput changed (change points)", run: runChanges})
}

func runChanges(ctx context.Context, e *env, args []string) error {
	var o analyze.ChangesOptions
	var iv string
	a, fs := newAnalysis(e, "changes", changesUsage, &o.Experiment)
	fs.StringVar(&iv, "interval", "", "interval length, whole ms: a duration (500ms, 1s) or a number of ms; default from the log's rate")
	fs.Float64Var(&o.Penalty, "penalty", 0, "penalty a change must beat, in -2 log-likelihood; default 3 ln(intervals)")
	fs.Float64Var(&o.MinChange, "min-change", analyze.DefaultMinChange, "smallest change kept between two segments, a share of the larger value; 0: keep every change")
	fs.IntVar(&o.MinSegment, "min-segment", analyze.DefaultMinSegment, "fewest intervals in a segment")
	addBy(fs, &o.By)
	if err := a.parse(args); err != nil {
		return err
	}
	if iv != "" {
		d, err := hypothesis.ParseInstant(iv)
		if err != nil || d <= 0 || d%time.Millisecond != 0 {
			return usagef("--interval %q: not a positive whole number of ms (500ms, 1s, 250)", iv)
		}
		o.IntervalMs = d.Milliseconds()
	}
	if o.Penalty < 0 {
		return usagef("--penalty %v: want a positive number", o.Penalty)
	}
	if o.MinChange < 0 || o.MinChange >= 1 {
		return usagef("--min-change %v: want a share from 0 to below 1", o.MinChange)
	}
	if o.MinChange == 0 {
		o.MinChange = -1 // keep every change
	}
	if o.MinSegment < 1 {
		return usagef("--min-segment %d: want a positive number of intervals", o.MinSegment)
	}
	return a.run(ctx, func(q store.Querier) (*analyze.Result, error) { return analyze.Changes(q, o) })
}
