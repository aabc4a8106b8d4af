package main

import (
	"context"
	"time"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

const thresholdsUsage = `Usage: rewind analyze thresholds [flags]

k6 thresholds replayed over a recorded log, one row per run (one test) and
threshold. --threshold takes k6's own syntax, METRIC: EXPRESSION, with
submetric tags and either k6's text or its object form:
  'http_req_duration: p(95)<200'
  'http_req_duration{status:200}: avg<150'
  'http_req_failed: {"threshold": "rate<0.01", "abortOnFail": true, "delayAbortEval": "10s"}'
Without --threshold, the thresholds the k6 log recorded are used. Metrics:
http_req_duration (latency_ms), http_req_failed (outcome not ok), http_reqs
(count, rate), and from a k6 log its timing trends and its other metrics
(iterations, checks, vus, custom metrics).

As k6 does, every --every (2s) of test time each threshold is evaluated over
all samples so far; an abortOnFail threshold that fails there aborts the
test. Columns: run, metric, threshold, abort_on_fail, samples, value and pass
(the verdict k6 prints: at the abort when the test aborts, else at the end),
first_fail_ms, abort_ms, failed_until (requests not ok by abort_ms, or by
first_fail_ms without abortOnFail), failed_total.

With --window, each threshold is evaluated over tumbling windows of that
length instead (--sliding: the window before every --every tick), which k6
does not offer. Columns: run, metric, threshold, windows, failed_windows,
first_fail_ms, first_fail_from_ms, value (in that window), failed_until
(requests not ok by first_fail_ms), failed_total.

Examples:
  rewind analyze thresholds
  rewind analyze thresholds --threshold 'http_req_duration: p(95)<200' --threshold 'http_req_failed: rate<0.01' --abort-on-fail
  rewind analyze thresholds --threshold 'http_req_duration{expected_response:true}: p(99)<500' --abort-on-fail --delay-abort-eval 10s
  rewind analyze thresholds --threshold 'http_req_duration: p(95)<200' --window 30s --sliding --format csv`

func init() {
	registerAnalysis(analysisCommand{name: "thresholds", summary: "k6 thresholds replayed: verdicts, aborts, windows", run: runThresholds})
}

func runThresholds(ctx context.Context, e *env, args []string) error {
	var o analyze.ThresholdsOptions
	var specs []string
	var abort bool
	var delay, every, window, duration string
	a, fs := newAnalysis(e, "thresholds", thresholdsUsage, &o.Experiment)
	fs.StringArrayVar(&specs, "threshold", nil, "a k6 threshold, `'METRIC: EXPRESSION'` (repeatable; default: the thresholds the k6 log recorded)")
	fs.BoolVar(&abort, "abort-on-fail", false, "every --threshold aborts the test when it fails (k6's abortOnFail)")
	fs.StringVar(&delay, "delay-abort-eval", "", "with --abort-on-fail, no abort before this much test time (k6's delayAbortEval), e.g. 10s")
	fs.StringVar(&every, "every", "2s", "test time between evaluations (k6 evaluates every 2s)")
	fs.StringVar(&window, "window", "", "evaluate over tumbling windows of this `DURATION` instead of cumulatively, e.g. 30s")
	fs.BoolVar(&o.Sliding, "sliding", false, "with --window, a window ends at every --every tick")
	fs.StringVar(&duration, "duration", "", "the test's length (default: to the run's last sample); counter rates divide by it")
	if err := a.parse(args); err != nil {
		return err
	}
	var err error
	if o.Every, err = positiveDuration("every", every); err != nil {
		return err
	}
	if o.Window, err = optionalDuration("window", window); err != nil {
		return err
	}
	if o.Duration, err = optionalDuration("duration", duration); err != nil {
		return err
	}
	if o.Thresholds, err = thresholdFlags(specs, abort, delay); err != nil {
		return err
	}
	switch {
	case o.Sliding && o.Window == 0:
		return usagef("--sliding needs --window, e.g. --window 30s --sliding")
	case abort && o.Window > 0:
		return usagef("--abort-on-fail applies to k6's cumulative evaluation, not to --window")
	case fs.Changed("delay-abort-eval") && !abort:
		return usagef("--delay-abort-eval needs --abort-on-fail")
	case (abort || fs.Changed("delay-abort-eval")) && len(specs) == 0:
		return usagef("--abort-on-fail applies to --threshold: give one")
	}
	a.eng.remote = one(func(r *analyze.Remote) (*analyze.Result, error) { return analyze.ThresholdsOn(r, o) })
	return a.run(ctx, func(q store.Querier) (*analyze.Result, error) {
		return analyze.Thresholds(q, o)
	})
}

// thresholdFlags parses the --threshold flags; --abort-on-fail and
// --delay-abort-eval apply to those written as k6's text.
func thresholdFlags(specs []string, abort bool, delay string) ([]analyze.Threshold, error) {
	var wait time.Duration
	if delay != "" {
		var err error
		if wait, err = hypothesis.ParseLongDuration(delay); err != nil || wait < 0 {
			return nil, usagef("--delay-abort-eval %q: want a duration such as 10s", delay)
		}
	}
	out := make([]analyze.Threshold, len(specs))
	for i, s := range specs {
		t, err := analyze.ParseThreshold(s)
		if err != nil {
			return nil, usagef("--threshold: %v", err)
		}
		if abort && !t.Object {
			t.AbortOnFail, t.Delay, t.HasDelay = true, wait, delay != ""
		}
		out[i] = t
	}
	return out, nil
}

func positiveDuration(flag, s string) (time.Duration, error) {
	d, err := hypothesis.ParseLongDuration(s)
	if err != nil || d <= 0 {
		return 0, usagef("--%s %q: want a positive duration such as 2s", flag, s)
	}
	return d, nil
}

func optionalDuration(flag, s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	return positiveDuration(flag, s)
}
