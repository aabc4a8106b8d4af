package main

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/spf13/pflag"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/replay"
)

const watchUsage = `Usage: rewind watch FILE.ndjson [flags]

Follows a growing canonical NDJSON log as tail -f does and applies the stop
criterion of 'rewind replay' to each window as it closes, with the same
code. A count window (--window 40) closes at its 40th row; a duration window
(--window 1s, by t_ms) closes when a row of a later window arrives (rows are
expected in t_ms order; a late row counts in the open window). A window is falsified when its ok
share is strictly below baseline - margin; the stop fires on the window that completes K
consecutive falsified windows. Each window is printed as it closes (the
columns of rewind replay). Exit code 3 the moment the stop fires; 0 when
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

The baseline is --baseline-share, or the mean control-run window share of a
recorded experiment (--baseline-experiment, same window size).

Examples:
  rewind watch live.ndjson --baseline-experiment gunluk
  rewind watch live.ndjson --baseline-share 0.96 --window 40 --stop-after 2
  rewind watch run.ndjson --baseline-share 0.955 --window 100 --until-eof && echo "no stop"
  rewind watch live.ndjson --baseline-share 0.96 --window 1s --idle-timeout 30s`

func init() {
	register(command{name: "watch", summary: "follow a growing log and exit 3 when the stop criterion fires", run: runWatch})
}

type watchOptions struct {
	db, baselineExp, baselineShare string
	opts                           openFlags
	window                         string
	margin                         string
	k                              int
	untilEOF                       bool
	idle                           time.Duration
	format                         string
}

func watchFlags(e *env) (*watchOptions, *pflag.FlagSet) {
	o := &watchOptions{}
	fs := newFlags(e, "watch", watchUsage)
	fs.StringVar(&o.db, "db", analyze.DefaultDB, "database file (for --baseline-experiment)")
	fs.StringVar(&o.baselineExp, "baseline-experiment", "", "take the baseline from this recorded experiment's control run")
	fs.StringVar(&o.baselineShare, "baseline-share", "", "the baseline as an exact share, e.g. 0.96")
	fs.StringVar(&o.window, "window", "", "rows per window (40) or a duration by t_ms (1s) (default: the baseline experiment's stored window)")
	fs.StringVar(&o.margin, "margin", "0.10", "margin below the baseline, as an exact share")
	fs.IntVar(&o.k, "stop-after", 1, "consecutive falsified windows that stop the experiment")
	fs.BoolVar(&o.untilEOF, "until-eof", false, "end at the end of the file instead of following it")
	fs.DurationVar(&o.idle, "idle-timeout", 0, "end when the file has not grown for this long")
	fs.StringVarP(&o.format, "format", "f", "table", "output format: table or json")
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
	cfg, err := o.config(ctx)
	if err != nil {
		return err
	}
	cfg.Path = fs.Arg(0)
	cfg.Notice = func(msg string) { fmt.Fprintf(e.stderr, "watch: %s\n", msg) }
	p, err := replay.NewPrinter(e.stdout, o.format)
	if err != nil {
		return usageError{err}
	}
	s, err := replay.Follow(ctx, cfg, p.Verdict)
	if err != nil {
		return err
	}
	if s.StopWindow > 0 {
		return stopFired{replay.StopMessage(s, cfg.Rule)}
	}
	return replay.WriteSummary(e.stderr, s, cfg.Rule)
}

// config checks the flags and resolves the baseline and window.
func (o *watchOptions) config(ctx context.Context) (replay.FollowConfig, error) {
	c := replay.FollowConfig{UntilEOF: o.untilEOF, IdleTimeout: o.idle}
	c.Rule.StopAfter = o.k
	if o.k < 1 {
		return c, usagef("--stop-after %d: want 1 or more consecutive windows", o.k)
	}
	if o.untilEOF && o.idle > 0 {
		return c, usagef("--until-eof and --idle-timeout: give one")
	}
	w, err := windowFlag(o.window)
	if err != nil {
		return c, err
	}
	c.Size, c.SizeMs = w.N, w.Ms
	if c.Rule.Margin, err = replay.ParseMargin(o.margin); err != nil {
		return c, usagef("--margin %v", err)
	}
	switch {
	case (o.baselineExp == "") == (o.baselineShare == ""):
		return c, usageError{hinted{fmt.Errorf("give the baseline: --baseline-experiment NAME or --baseline-share X"),
			"rewind watch FILE --baseline-share 0.96 --window 40"}}
	case o.baselineShare != "":
		if c.Rule.Baseline, err = replay.ParseShare(o.baselineShare); err != nil {
			return c, usagef("--baseline-share %v", err)
		}
		if w.IsZero() {
			return c, usagef("--window: give the window (rows, e.g. 40, or a duration, e.g. 1s) with --baseline-share")
		}
		return c, nil
	}
	c.Rule.Baseline, w, err = o.recordedBaseline(ctx, w)
	c.Size, c.SizeMs = w.N, w.Ms
	return c, err
}

// recordedBaseline reads the baseline (and, without --window, the window)
// from a recorded experiment.
func (o *watchOptions) recordedBaseline(ctx context.Context, flag analyze.Window) (*big.Rat, analyze.Window, error) {
	db, err := o.opts.open(ctx, o.db, false)
	if err != nil {
		return nil, flag, err
	}
	defer db.Close()
	w, b, err := replay.RecordedBaseline(ctx, db, o.baselineExp, flag)
	return b, w, err
}
