package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/rewind-dev/rewind/analyze"
)

// analysisCommand is one `rewind analyze NAME`. Each lives in its own file
// (analyze_blast_radius.go, ...) and registers itself with registerAnalysis.
type analysisCommand struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

var analyses = map[string]analysisCommand{}

func registerAnalysis(a analysisCommand) { analyses[a.name] = a }

func init() {
	register(command{name: "analyze", summary: "run an analysis of the SQL library", run: runAnalyze})
}

func runAnalyze(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(e.stdout, "Usage: rewind analyze NAME [--db FILE] [--experiment NAME] [--format table|json|csv] [flags]\n\nAnalyses:")
		names := make([]string, 0, len(analyses))
		for n := range analyses {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(e.stdout, "  %-14s %s\n", n, analyses[n].summary)
		}
		if len(args) == 0 {
			return usagef("missing analysis name")
		}
		return nil
	}
	a, ok := analyses[args[0]]
	if !ok {
		return usageError{hinted{fmt.Errorf("unknown analysis %q", args[0]), "rewind analyze --help"}}
	}
	return a.run(ctx, e, args[1:])
}

// printResult writes a result in the chosen format.
func printResult(e *env, r *analyze.Result, format string) error {
	return analyze.Write(e.stdout, r, format)
}
