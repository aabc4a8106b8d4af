package main

import (
	"fmt"

	"github.com/rewind-dev/rewind/analyze"
)

// analysisCommand is one `rewind analyze NAME`, registered with registerAnalysis.
type analysisCommand = command

var analyses = &group{usage: "Usage: rewind analyze NAME [--db FILE] [--experiment NAME] [--format table|json|csv] [flags]",
	title: "Analyses", noun: "analysis", cmd: "analyze", subs: map[string]command{}}

func registerAnalysis(a analysisCommand) { analyses.register(a) }

func init() {
	register(command{name: "analyze", summary: "run an analysis of the SQL library", run: analyses.run})
}

// printResult writes a result in the chosen format.
func printResult(e *env, r *analyze.Result, format string) error {
	for _, n := range r.Notes {
		fmt.Fprintf(e.stderr, "Note: %s\n", n)
	}
	return analyze.Write(e.stdout, r, format)
}
