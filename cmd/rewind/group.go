package main

import (
	"context"
	"fmt"
	"sort"
)

// group is a command with subcommands: rewind analyze NAME, rewind sim MODEL.
// Each subcommand lives in its own file and registers itself in init.
type group struct {
	usage string // first line of the help, e.g. "Usage: rewind sim MODEL [flags]"
	title string // heading of the list, e.g. "Models"
	noun  string // what a subcommand is called in errors, e.g. "simulator"
	cmd   string // the command's name, for Try: lines
	subs  map[string]command
}

func (g *group) register(c command) { g.subs[c.name] = c }

func (g *group) run(ctx context.Context, e *env, args []string) error {
	if len(args) > 1 && args[0] == "help" {
		args = []string{args[1], "--help"} // rewind analyze help peaks = rewind analyze peaks --help
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		w := e.stdout
		if len(args) == 0 {
			w = e.stderr // a mistake: the usage goes with the error
		}
		fmt.Fprintf(w, "%s\n\n%s:\n", g.usage, g.title)
		names := make([]string, 0, len(g.subs))
		for n := range g.subs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(w, "  %-14s %s\n", n, g.subs[n].summary)
		}
		if len(args) == 0 {
			return usagef("missing %s name", g.noun)
		}
		return nil
	}
	c, ok := g.subs[args[0]]
	if !ok {
		names := make([]string, 0, len(g.subs))
		for n := range g.subs {
			names = append(names, n)
		}
		if s := suggest(args[0], names); s != "" {
			return usageError{hinted{fmt.Errorf("unknown %s %q: did you mean %q?", g.noun, args[0], s),
				"rewind " + g.cmd + " " + shellJoin(append([]string{s}, fixFlags(ctx, g.subs[s], args[1:])...))}}
		}
		return usageError{hinted{fmt.Errorf("unknown %s %q", g.noun, args[0]), "rewind " + g.cmd + " --help"}}
	}
	return c.run(ctx, e, args[1:])
}
