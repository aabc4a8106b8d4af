package main

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/spf13/pflag"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/replay"
	"github.com/rewind-dev/rewind/store"
)

const watchUsage = `Usage: rewind watch FILE.ndjson [flags]

Follows a growing canonical NDJSON log as tail -f does and applies the stop
criterion of 'rewind replay' to each window as it closes, with the same
code. A count window (--window 40) closes at its 40th row; a duration window
(--window 1s, by t_ms) closes when a row of a later window arrives (rows are
expected in t_ms order; a late row counts in the open window). A window is falsified when its ok
share is strictly below baseline - margin; the stop fires on the window that completes K
consecutive falsified windows. Each window is printed as it closes (the
columns of rewind replay; --format csv writes a line per window, --format
json one JSON array, closed however watch ends). Exit code 3 the moment the stop fires; 0 when
the log ends without a stop (--until-eof: at end of file; --idle-timeout:
after no growth for that long); without either, it follows until stopped.
At the end of the log the open window closes as a short last window.

Rows count when their role is "experiment", or when they have no role at
all (a log of one live run): the line's role, else the role an earlier run
record gave its run, else the run name when it is control or experiment.
A partial last line is waited for; a malformed complete line is an error
naming file:line.

Like tail -F, watch follows the file name: when the log is truncated, or
rotated (mv, or rm, and a new file created at the name), watch says so on
stderr and reads the new content from its first line (line numbers restart;
the windows and the streak carry on, as the new file continues the log).
A removed log is waited for until a new one appears (or --idle-timeout).

The baseline is --baseline-share (or --baseline in the metric's unit: 0.96,
230ms, 50/s), or the mean window value of a recorded run: the control role
of --baseline-experiment, or --control RUN of it (--control
EXPERIMENT/RUN alone names both), with the same window size; or the log's
own first part (--baseline-until 2m, or an event line's type such as
action_start): its windows make the baseline, taken when the first row
sent at or after the split arrives, and are not printed; the rest is
judged, its windows counted from the split. --max and --min need no
baseline. Damage counts every request not ok until the log
shows a tagged request, then tagged requests not ok.

` + hypothesisHelp + `

` + stopHelp + ` Watch evaluates the alert itself,
as the lines arrive (good: outcome ok, or --good, evaluated on each line,
which offers run, role, outcome, status, latency_ms, t_ms, tagged and
count), with the same result as the macro:
the stop fires in the open window the moment the first request sent after
the alert arrives (or at the end of the log); no baseline is needed.

Examples:
  rewind watch live.ndjson --baseline-experiment gunluk
  rewind watch live.ndjson --baseline-share 0.96 --window 40 --stop-after 2
  rewind watch run.ndjson --baseline-share 0.955 --window 100 --until-eof && echo "no stop"
  rewind watch live.ndjson --baseline-share 0.96 --window 1s --idle-timeout 30s
  rewind watch live.ndjson --control checkout/baseline --metric p95 --tolerance 20% --window 30s
  rewind watch live.ndjson --metric p99 --max 800ms --window 30s --stop-after 2
  rewind watch live.ndjson --baseline-until action_start --metric p95 --tolerance 20% --window 30s
  rewind watch live.ndjson --window 30s --stop-on burn-rate --slo 99.9% --rules '1m/5m>14.4'`

func init() {
	register(command{name: "watch", summary: "follow a growing log and exit 3 when the stop criterion fires", run: runWatch})
}

type watchOptions struct {
	db, baselineExp, baselineShare string
	baseline                       string
	h                              hypothesisFlags
	stop                           stopFlags
	opts                           openFlags
	window                         string
	margin                         string
	k                              int
	untilEOF                       bool
	idle                           time.Duration
	format                         string
	maxRecord                      string
}

func watchFlags(e *env) (*watchOptions, *pflag.FlagSet) {
	o := &watchOptions{}
	fs := newFlags(e, "watch", watchUsage)
	fs.StringVar(&o.db, "db", store.DefaultDB, "database file (for --baseline-experiment)")
	fs.StringVar(&o.baselineExp, "baseline-experiment", "", "take the baseline from this recorded experiment's control run")
	fs.StringVar(&o.baselineShare, "baseline-share", "", "the baseline as an exact share, e.g. 0.96")
	fs.StringVar(&o.window, "window", "", "rows per window (40) or a duration by t_ms (1s) (default: the baseline experiment's stored window)")
	fs.StringVar(&o.margin, "margin", hypothesis.DecimalLit(hypothesis.DefaultMargin), "margin below the baseline, as an exact share")
	fs.IntVar(&o.k, "stop-after", 1, "consecutive falsified windows that stop the experiment")
	fs.BoolVar(&o.untilEOF, "until-eof", false, "end at the end of the file instead of following it")
	fs.DurationVar(&o.idle, "idle-timeout", 0, "end when the file has not grown for this long")
	fs.StringVar(&o.maxRecord, "max-record", "64MiB", "refuse a line longer than SIZE, as ingest does")
	fs.StringVarP(&o.format, "format", "f", "table", formatHelp)
	fs.StringVar(&o.baseline, "baseline", "", "the baseline in the metric's unit: 0.96 (shares), 230ms, 50/s")
	o.h.add(fs, false, true)
	o.stop.add(fs, true)
	o.opts.add(fs)
	return o, fs
}

func runWatch(ctx context.Context, e *env, args []string) error {
	o, fs := watchFlags(e)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{hinted{fmt.Errorf("want one log file, got %d arguments", fs.NArg()), "rewind watch --help"}}
	}
	if err := checkRowFormat(o.format); err != nil {
		return err
	}
	cfg, err := o.config(ctx)
	if err != nil {
		return err
	}
	cfg.Path = fs.Arg(0)
	cfg.Notice = func(msg string) { fmt.Fprintf(e.stderr, "watch: %s\n", msg) }
	// Rows as each window closes; a JSON array is closed however watch ends
	// (a stop, the end of the log, an interrupt), so it always parses.
	p, err := newVerdictOut(e.stdout, o.format, cfg.Rule.Metric, false)
	if err != nil {
		return usageError{err}
	}
	if o.stop.good != "" {
		g, err := replay.NewGood(ctx, o.stop.good)
		if err != nil {
			return usageError{err}
		}
		defer g.Close()
		cfg.Good, cfg.GoodText = g.Eval, o.stop.good
	}
	s, err := replay.Follow(ctx, cfg, p.Verdict)
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if s.Baseline != nil {
		cfg.Rule.Baseline = s.Baseline
	}
	if s.StopWindow > 0 {
		return stopFired{replay.StopMessage(s, cfg.Rule)}
	}
	return replay.WriteSummary(e.stderr, s, cfg.Rule)
}

// config checks the flags and resolves the baseline and window.
func (o *watchOptions) config(ctx context.Context) (replay.FollowConfig, error) {
	c := replay.FollowConfig{UntilEOF: o.untilEOF, IdleTimeout: o.idle}
	c.Rule.StopAfter, c.Rule.Damage = o.k, replay.DamageAuto
	if err := o.following(&c); err != nil {
		return c, err
	}
	w, err := windowFlag(o.window)
	if err != nil {
		return c, err
	}
	c.Size, c.SizeMs = w.N, w.Ms
	h, err := o.h.hypothesis()
	if err != nil {
		return c, err
	}
	c.Rule.Metric = h.Metric
	if err := o.rule(&c.Rule); err != nil {
		return c, err
	}
	if alone, err := o.burnRule(&c, w); alone || err != nil {
		return c, err
	}
	if h.BaselineUntil != "" {
		return c, o.baselineFromLog(&c, w, h.BaselineUntil)
	}
	if c.Rule.Bound != nil && !c.Rule.Bound.Relative() {
		if w.IsZero() {
			return c, usagef("--window: give the window (rows, e.g. 40, or a duration, e.g. 1s) with --%s", c.Rule.Bound.Kind)
		}
		return c, nil
	}
	return c, o.resolveBaseline(ctx, &c, w, h.Metric)
}

// following reads how the file is followed: the record cap, the stop count
// and when to end.
func (o *watchOptions) following(c *replay.FollowConfig) error {
	var err error
	if c.MaxRecord, err = ingest.ParseSize(o.maxRecord); err != nil {
		return usagef("--max-record %v", err)
	}
	if o.k < 1 {
		return usagef("--stop-after %d: want 1 or more consecutive windows", o.k)
	}
	if o.untilEOF && o.idle > 0 {
		return usagef("--until-eof and --idle-timeout: give one")
	}
	return nil
}

// burnRule reads --stop-on burn-rate; alone is true when the alert alone
// decides, with no baseline to judge windows by.
func (o *watchOptions) burnRule(c *replay.FollowConfig, w hypothesis.Window) (alone bool, err error) {
	if c.Burn, err = o.stop.burn(); err != nil || c.Burn == nil {
		return false, err
	}
	if w.IsZero() {
		return false, usagef("--window: give the window (rows, e.g. 40, or a duration, e.g. 30s) with --stop-on burn-rate")
	}
	c.Rule.StopWindow, c.Rule.BurnText = math.MaxInt64, c.Burn.Text()
	if o.baselineExp == "" && o.h.control == "" && o.baseline == "" && o.baselineShare == "" &&
		(c.Rule.Bound == nil || c.Rule.Bound.Relative()) {
		c.Rule.Unjudged = true
		return true, nil
	}
	return false, nil
}

// baselineFromLog reads --baseline-until: the baseline is the log's own
// rows up to a time or an event.
func (o *watchOptions) baselineFromLog(c *replay.FollowConfig, w hypothesis.Window, until string) error {
	if o.baselineExp != "" || o.h.control != "" || o.baseline != "" || o.baselineShare != "" {
		return usagef("--baseline-until takes the baseline from the log itself: not with --baseline-experiment, --control, --baseline or --baseline-share")
	}
	if w.IsZero() {
		return usagef("--window: give the window (rows, e.g. 40, or a duration, e.g. 30s) with --baseline-until")
	}
	d, err := time.ParseDuration(until)
	if err != nil {
		c.SplitEvent = until
		return nil
	}
	if d <= 0 {
		return usagef("--baseline-until %s: want a positive duration or an event type", until)
	}
	ms := float64(d) / float64(time.Millisecond)
	c.SplitMs = &ms
	return nil
}

// resolveBaseline takes the baseline given (--baseline, --baseline-share)
// or recorded (--baseline-experiment, --control), and the window with it.
func (o *watchOptions) resolveBaseline(ctx context.Context, c *replay.FollowConfig, w hypothesis.Window, metric string) error {
	given := o.baselineShare
	if o.baseline != "" {
		given = o.baseline
	}
	var err error
	switch {
	case (o.baselineExp == "" && o.h.control == "") == (given == ""):
		try := "rewind watch FILE --baseline-share 0.96 --window 40"
		if hypothesis.MetricUnit(metric) == "ms" {
			try = "rewind watch FILE --metric " + metric + " --max 250ms --window 30s"
		}
		return usageError{hinted{fmt.Errorf("give the baseline: --baseline-experiment NAME, --control EXPERIMENT/RUN, or --baseline VALUE (0.96, 230ms, 50/s); or an absolute --max or --min"), try}}
	case o.baselineShare != "" && o.baseline != "":
		return usagef("--baseline and --baseline-share: give one")
	case given != "":
		if c.Rule.Baseline, err = hypothesis.ParseAmount(given, metric); err != nil {
			return usagef("--baseline %q: %v", given, err)
		}
		if w.IsZero() {
			return usagef("--window: give the window (rows, e.g. 40, or a duration, e.g. 1s) with --baseline-share")
		}
		return nil
	}
	c.Rule.Baseline, w, err = o.recordedBaseline(ctx, w, metric)
	c.Size, c.SizeMs = w.N, w.Ms
	return err
}

// rule reads the threshold: --margin (shares), --tolerance, --max or --min.
func (o *watchOptions) rule(r *replay.Rule) error {
	bounds, err := o.h.bounds("", false)
	if err != nil {
		return err
	}
	metric := o.h.metric
	switch {
	case len(bounds) == 1:
		if o.h.fs.Changed("margin") {
			return usagef("--margin and --%s: give one threshold form", bounds[0].Kind)
		}
		r.Bound = &bounds[0]
	case hypothesis.MetricUnit(metric) != "share":
		if o.h.fs.Changed("margin") {
			_, err := hypothesis.ParseBound("margin", o.margin, metric)
			return usageError{err}
		}
		b, err := hypothesis.Threshold(metric, nil, "")
		if err != nil {
			return err
		}
		r.Bound = &b
	default:
		if r.Margin, err = replay.ParseMargin(o.margin); err != nil {
			return usagef("--margin %v", err)
		}
		if metric == "error_rate" {
			b, err := hypothesis.Threshold(metric, nil, o.margin)
			if err != nil {
				return usageError{err}
			}
			r.Bound = &b
		}
	}
	return nil
}

// recordedBaseline reads the baseline (and, without --window, the window)
// from a recorded experiment.
func (o *watchOptions) recordedBaseline(ctx context.Context, flag hypothesis.Window, metric string) (*big.Rat, hypothesis.Window, error) {
	db, err := o.opts.open(ctx, o.db, false)
	if err != nil {
		return nil, flag, err
	}
	defer db.Close()
	w, b, err := replay.RecordedBaseline(ctx, db, o.baselineExp, o.h.control, flag, metric)
	return b, w, err
}
