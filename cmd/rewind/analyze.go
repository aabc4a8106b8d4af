package main

import (
	"context"
	"fmt"

	"github.com/rewind-dev/rewind/analyze"
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

// runAnalysis opens the database read-only, runs fn and prints its result.
func runAnalysis(ctx context.Context, e *env, d *dbFlags, cmd string, fn func(store.Querier) (*analyze.Result, error)) error {
	if err := d.checkFormat(); err != nil {
		return err
	}
	db, err := d.openRead(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := fn(store.WithContext(ctx, db))
	if err != nil {
		return explain(err, cmd)
	}
	return printResult(e, res, d.format)
}
