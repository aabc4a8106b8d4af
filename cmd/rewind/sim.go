package main

import (
	"context"
	"fmt"
	"sort"
)

// simCommand is one simulator under `rewind sim`. Each lives in its own file
// (sim_chaos.go, sim_storm.go, ...) and registers itself in init with registerSim.
type simCommand struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

var sims = map[string]simCommand{}

func registerSim(s simCommand) { sims[s.name] = s }

func init() {
	register(command{name: "sim", summary: "run a seed model as a simulator that writes a log", run: runSim})
}

func runSim(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(e.stdout, "Usage: rewind sim MODEL [flags]\n\nModels:")
		names := make([]string, 0, len(sims))
		for n := range sims {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(e.stdout, "  %-8s %s\n", n, sims[n].summary)
		}
		if len(args) == 0 {
			return usagef("missing simulator name")
		}
		return nil
	}
	s, ok := sims[args[0]]
	if !ok {
		return usageError{hinted{fmt.Errorf("unknown simulator %q", args[0]), "rewind sim --help"}}
	}
	return s.run(ctx, e, args[1:])
}
