package main

import (
	"context"
	"fmt"
	"io"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/internal/progress"
	"github.com/rewind-dev/rewind/replay"
)

const replayUsage = `Usage: rewind replay [flags]

Walks the experiment run window by window, in recorded order, as if it were
live, and applies the stop criterion "stop after K consecutive falsified
windows" to each window as it closes. A window is falsified when its ok
share is strictly below baseline - margin, the baseline being the mean ok
share of the control run's windows (decided exactly: a tie does not
falsify). Each line shows the window, requests, ok, ok_share, threshold,
falsified, streak, damage_so_far (tagged requests not ok, cumulative) and
STOP on the stopping window. It ends with the stop window, the damage until
the stop and the damage the stop would have prevented. The numbers are
those of 'rewind analyze stop-damage'.

` + hypothesisHelp + `

` + stopHelp + ` Replay takes the alert from the burn_rate
macro (analyze burn-rate's numbers) and stops at the window of the first
request sent after it fired; the summary adds the alert's moment and the
requests that had failed by then.

--speed paces the windows by the log's own t_ms (2 = twice as fast); --fast
(also --max with no value), the default when stdout is not a terminal, does
not wait. --format json writes one JSON array, an object per window (keys
window, requests, ok, ok_share, threshold, falsified, streak,
damage_so_far, stop; shares 0-1), --format csv the same columns with a
header; the opening line and the summary then go to stderr.

Examples:
  rewind replay
  rewind replay --margin 0.05 --stop-after 2
  rewind replay --window 1s --speed 10
  rewind replay --format json | jq '.[] | select(.stop)'
  rewind replay --format csv > windows.csv
  rewind replay --control baseline --treatment canary --metric p95 --window 30s --tolerance 20%
  rewind replay --window 30s --stop-on burn-rate --slo 99% --rules '1m/5m>5'`

func init() {
	register(command{name: "replay", summary: "walk a recorded experiment window by window with a stop rule", run: runReplay})
}

type replayOptions struct {
	d      dbFlags
	h      hypothesisFlags
	stop   stopFlags
	format string
	window string
	margin string
	k      int
	speed  float64
	fast   bool
}

func runReplay(ctx context.Context, e *env, args []string) error {
	var o replayOptions
	fs := newFlags(e, "replay", replayUsage)
	o.d.add(fs, false)
	fs.StringVarP(&o.format, "format", "f", "table", formatHelp)
	addWindow(fs, &o.window)
	fs.StringVar(&o.margin, "margin", "", "margin below the baseline, as an exact share (default: the stored margin, else 0.10)")
	fs.IntVar(&o.k, "stop-after", 1, "consecutive falsified windows that stop the experiment")
	fs.Float64Var(&o.speed, "speed", 0, "pace windows by the log's t_ms, this many times faster")
	fs.BoolVar(&o.fast, "fast", false, "do not wait between windows (the default when stdout is not a terminal)")
	o.h.add(fs, false, false)
	o.stop.add(fs, true)
	fs.Lookup("max").NoOptDefVal = noWait
	var eng engineFlags
	eng.add(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if eng.on() {
		return &analyze.NotOnEngineError{Engine: "Spark", Analysis: "replay", Missing: "its windows are walked one by one from a recording that has no reduce steps for Spark"}
	}
	wait, err := o.h.maxAsNoWait()
	if err != nil {
		return err
	}
	o.fast = o.fast || wait
	if fs.NArg() > 0 && o.h.max == "" {
		return usagef("replay takes no arguments, got %q", fs.Arg(0))
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	if fs.Changed("speed") && (o.fast || o.speed <= 0) {
		return usagef("--speed %g: want a positive speed, and not with --fast", o.speed)
	}
	if err := checkRowFormat(o.format); err != nil {
		return err
	}
	db, err := o.d.openRead(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	rec, err := replay.Load(ctx, db, cfg)
	if err != nil {
		return explain(err, "rewind replay")
	}
	speed := o.pace(e, fs.Changed("speed"), rec)
	return walk(ctx, e, o.format, rec, speed)
}

func (o *replayOptions) config() (replay.Config, error) {
	c := replay.Config{Experiment: o.d.experiment, StopAfter: o.k}
	var err error
	if c.Window, err = windowFlag(o.window); err != nil {
		return c, err
	}
	if o.margin != "" {
		if c.Margin, err = replay.ParseMargin(o.margin); err != nil {
			return c, usagef("--margin %v", err)
		}
	}
	if o.k < 1 {
		return c, usagef("--stop-after %d: want 1 or more consecutive windows", o.k)
	}
	if c.Hypothesis, err = o.h.hypothesis(); err != nil {
		return c, err
	}
	if c.Burn, err = o.stop.burn(); err != nil {
		return c, err
	}
	c.Good = o.stop.good
	bounds, err := o.h.bounds("margin", false)
	if err != nil || len(bounds) == 0 {
		return c, err
	}
	if bounds[0].Kind != "margin" || c.Hypothesis.Metric != "ok_share" {
		c.Bound = &bounds[0]
	}
	return c, nil
}

// pace picks the speed: the flag's; else 1x on a terminal when the log has
// t_ms to pace by; else 0 (no waiting).
func (o *replayOptions) pace(e *env, speedSet bool, rec *replay.Recording) float64 {
	switch {
	case speedSet:
		return o.speed
	case o.fast || !e.stdoutTTY:
		return 0
	}
	if _, err := replay.Schedule(rec.Windows, 1); err != nil {
		return 0
	}
	return 1
}

// walk prints the windows as they close and then the summary; with --speed
// a bar on stderr counts the windows, cleared before each row so that rows
// and bar never share a line on the terminal.
func walk(ctx context.Context, e *env, format string, rec *replay.Recording, speed float64) error {
	var out io.Writer = e.stdout
	if isData(format) {
		out = e.stderr // stdout holds only the rows
	}
	if speed > 0 {
		if _, err := replay.Schedule(rec.Windows, speed); err != nil {
			return hinted{err, "rewind replay --fast"}
		}
	}
	fmt.Fprintln(out, replay.Describe(rec)) // before the bar, which takes the line below
	var bar *progress.Bar
	if speed > 0 {
		bar = progress.New(e.stderr, e.stderrTTY, int64(len(rec.Windows)), "replay", "windows")
		defer bar.Finish()
	}
	p, err := newVerdictOut(e.stdout, format, rec.Rule.Metric, speed == 0)
	if err != nil {
		return usageError{err}
	}
	s, err := rec.Walk(ctx, speed, func(v replay.Verdict) error {
		bar.Clear()
		defer bar.Add(1)
		return p.Verdict(v)
	})
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	bar.Finish()
	return replay.WriteSummary(out, s, rec.Rule)
}
