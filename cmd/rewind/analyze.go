package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// analysisCommand is one `rewind analyze NAME`, registered with registerAnalysis.
type analysisCommand = command

var analyses = &group{usage: "Usage: rewind analyze NAME [--db FILE] [--experiment NAME] [--format table|json|csv] [flags]",
	title: "Analyses", noun: "analysis", cmd: "analyze", subs: map[string]command{}}

func registerAnalysis(a analysisCommand) { analyses.register(a) }

func init() {
	register(command{name: "analyze", summary: "run an analysis of the SQL library", run: analyses.run})
}

// printResult writes a result in the chosen format, its notes first, with
// the parameters they suggest named as flags.
func printResult(e *env, r *analyze.Result, format string) error {
	for _, n := range r.SayNotes(flagName) {
		fmt.Fprintf(e.stderr, "Note: %s\n", n)
	}
	return analyze.Write(e.stdout, r, format)
}

// analysis is the command line of an analysis that reads the database,
// and the steps each one takes: the database flags first (--db,
// --experiment, --format and how it is opened), then the analysis's own;
// parse; open the database read-only, run, print.
type analysis struct {
	e          *env
	fs         *pflag.FlagSet
	d          dbFlags
	eng        engineFlags
	experiment *string // the options' Experiment, which parse sets
}

// newAnalysis starts the command line of `rewind analyze NAME`; experiment
// is the Experiment of the analysis's options. It returns the flag set the
// analysis adds its own flags to.
func newAnalysis(e *env, name, usage string, experiment *string) (*analysis, *pflag.FlagSet) {
	a := &analysis{e: e, fs: newFlags(e, "analyze "+name, usage), experiment: experiment}
	a.d.add(a.fs, true)
	a.eng.add(a.fs)
	return a, a.fs
}

// parse parses args (an analysis takes no arguments: see strayArgs) and
// sets the options' Experiment.
func (a *analysis) parse(args []string) error {
	if err := parse(a.fs, args); err != nil {
		return err
	}
	*a.experiment = a.d.experiment
	return nil
}

// run opens the database read-only, runs fn and prints its result.
func (a *analysis) run(ctx context.Context, fn func(store.Querier) (*analyze.Result, error)) error {
	return a.runTwo(ctx, func(q store.Querier) (*analyze.Result, *analyze.Result, error) {
		r, err := fn(q)
		return r, nil, err
	})
}

// runTwo is run for an analysis that prints a second table after the
// first, a blank line between (none when fn returns no second).
func (a *analysis) runTwo(ctx context.Context, fn func(store.Querier) (first, second *analyze.Result, err error)) error {
	if err := a.d.checkFormat(); err != nil {
		return err
	}
	if a.eng.on() {
		if a.d.opts.fs != nil && a.d.opts.fs.Changed("db") {
			return usagef("--spark reads a dataset, not a database: give --dataset PATH instead of --db")
		}
		return a.eng.run(ctx, a.e, a.fs.Name()[len("analyze "):], a.d.format, a.d.dataset)
	}
	db, err := a.d.openRead(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	first, second, err := fn(store.WithContext(ctx, db))
	if err != nil {
		return explain(err, "rewind "+a.fs.Name())
	}
	return printTwo(a.e, first, second, a.d.format)
}

// printTwo prints first and, when there is one, a blank line and second.
func printTwo(e *env, first, second *analyze.Result, format string) error {
	if err := printResult(e, first, format); err != nil || second == nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	return printResult(e, second, format)
}

// windowedAnalysis is an analysis that judges a hypothesis window by window
// (falsification, stop-damage): --window comes before the analysis's own
// flags, the hypothesis's flags and --by after them (addHypothesis).
type windowedAnalysis struct {
	*analysis
	window   string
	windowTo *hypothesis.Window // the options' Window, which parse sets
	hyp      hypothesisFlags
}

// newWindowedAnalysis is newAnalysis, then --window; window is the Window
// of the analysis's options.
func newWindowedAnalysis(e *env, name, usage string, experiment *string, window *hypothesis.Window) (*windowedAnalysis, *pflag.FlagSet) {
	a, fs := newAnalysis(e, name, usage, experiment)
	w := &windowedAnalysis{analysis: a, windowTo: window}
	addWindow(fs, &w.window)
	return w, fs
}

// addHypothesis adds the hypothesis's flags (comma lists of thresholds
// when sweep) and --by.
func (a *windowedAnalysis) addHypothesis(sweep bool, by *[]string) {
	a.hyp.add(a.fs, sweep, false)
	addBy(a.fs, by)
}

// parse is the analysis's parse, then reads --window.
func (a *windowedAnalysis) parse(args []string) error {
	if err := a.analysis.parse(args); err != nil {
		return err
	}
	var err error
	*a.windowTo, err = windowFlag(a.window)
	return err
}
