package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/ingest/format/gunluk"
	"github.com/rewind-dev/rewind/internal/progress"
	"github.com/rewind-dev/rewind/internal/textsafe"
)

// Exit codes, documented in the README.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
	exitStop  = 3 // a stop criterion fired (rewind watch)
)

// env is what a subcommand sees of the process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// stderrTTY is true when stderr is a terminal (progress bars are shown then).
	stderrTTY bool
	stdoutTTY bool
	// sawFlags, when set, is given every flag set newFlags makes: how a
	// Try line learns the flags of a command it did not run.
	sawFlags func(*pflag.FlagSet)
}

// command is one subcommand. Each lives in its own file and registers itself
// in init with register.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

var commands = map[string]command{}

func register(c command) { commands[c.name] = c }

// usageError marks a mistake in the command line (exit 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// stopFired is returned when a stop criterion fired (exit 3).
type stopFired struct{ msg string }

func (s stopFired) Error() string { return s.msg }

// hinted errors carry a command that works, printed as "Try: ...".
type hinted struct {
	err error
	try string
}

func (h hinted) Error() string { return h.err.Error() }
func (h hinted) Unwrap() error { return h.err }

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr,
		stderrTTY: isTerminal(stderr), stdoutTTY: isTerminal(stdout)}
	switch {
	case len(args) == 0:
		// A mistake, like every usage error: the usage goes to stderr.
		printUsage(stderr)
		return exitUsage
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help" && (len(args) == 1 || args[1] == "help"):
		printUsage(stdout)
		return exitOK
	case args[0] == "help":
		// rewind help analyze peaks = rewind analyze peaks --help
		args = append(args[1:], "--help")
	case args[0] == "--version" || args[0] == "-V":
		args = []string{"version"}
	}
	c, ok := commands[args[0]]
	if !ok {
		try := "rewind --help"
		if s := suggest(args[0], commandNames()); s != "" {
			try = "rewind " + strings.Join(append([]string{s}, args[1:]...), " ")
			fmt.Fprintf(stderr, "Error: unknown command %q: did you mean %q?\nTry: %s\n", args[0], s, try)
			return exitUsage
		}
		fmt.Fprintf(stderr, "Error: unknown command %q\nTry: %s\n", args[0], try)
		return exitUsage
	}
	err := c.run(ctx, e, args[1:])
	return report(stderr, err)
}

// report prints err the way the README documents and returns the exit code.
func report(stderr io.Writer, err error) int {
	if err == nil || errors.Is(err, pflag.ErrHelp) {
		return exitOK
	}
	var sf stopFired
	if errors.As(err, &sf) {
		fmt.Fprintf(stderr, "%s\n", sf.msg)
		return exitStop
	}
	fmt.Fprintf(stderr, "Error: %s\n", cleanLines(flagged(err)))
	var h hinted
	if errors.As(err, &h) && h.try != "" {
		fmt.Fprintf(stderr, "Try: %s\n", cleanLines(h.try))
	}
	var u usageError
	if errors.As(err, &u) {
		return exitUsage
	}
	return exitError
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "rewind: trace-replay analytics for resilience experiments")
	fmt.Fprintln(w, "\nUsage: rewind COMMAND [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		if !strings.HasPrefix(n, "__") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'rewind COMMAND --help' for a command's flags and examples.")
}

// newFlags returns a flag set whose --help prints usage text that ends in examples.
func newFlags(e *env, name, usage string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	if e.sawFlags != nil {
		e.sawFlags(fs)
	}
	if strings.HasPrefix(name, "sim ") {
		fs.Bool("force", false, "replace an existing --out file that is not a log rewind sim wrote")
	}
	// Every command takes --quiet: no progress bar, whatever stderr is.
	fs.BoolFuncP("quiet", "q", "no progress bars (neither are drawn when stderr is not a terminal, CI is set or TERM=dumb)", func(string) error {
		e.stderrTTY = false
		return nil
	})
	fs.Usage = func() {
		head, examples, _ := strings.Cut(usage, "\nExamples:\n")
		fmt.Fprintf(e.stdout, "%s\n\nFlags:\n%s", strings.TrimSpace(head), fs.FlagUsages())
		if examples != "" {
			fmt.Fprintf(e.stdout, "\nExamples:\n%s\n", strings.TrimRight(examples, "\n"))
		}
	}
	return fs
}

// parse parses args; a flag error becomes a usage error (exit 2).
func parse(fs *pflag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err // pflag has printed the usage
		}
		return usageError{flagHint(fs, args, err)}
	}
	if err := strayArgs(fs); err != nil {
		return err
	}
	return checkSimOut(fs)
}

// simLog is a log a simulator wrote: the chaos seed's gunluk.json, or
// NDJSON that opens with its experiment record.
var simLog = outputKind{"a log rewind sim wrote", func(h []byte) bool {
	return bytes.HasPrefix(h, []byte(`{"record":"experiment","experiment":`)) || isGunlukHead(h)
}}

func isGunlukHead(h []byte) bool {
	f, err := ingest.Detect("gunluk.json", h)
	return err == nil && f == gunluk.Name
}

// checkSimOut holds a simulator's --out to the rule every output keeps: it
// replaces an earlier simulator log, never another file without --force.
func checkSimOut(fs *pflag.FlagSet) error {
	out := fs.Lookup("out")
	if !strings.HasPrefix(fs.Name(), "sim ") || out == nil || out.Value.String() == "" || out.Value.String() == "-" {
		return nil
	}
	force := fs.Lookup("force") != nil && fs.Lookup("force").Value.String() == "true"
	return checkOutput(fs, "out", out.Value.String(), simLog, force)
}

// strayArgs refuses arguments after the flags of an analysis or a
// simulator, which take none: `analyze stop-damage run.log` would
// otherwise analyse the database and ignore the file.
func strayArgs(fs *pflag.FlagSet) error {
	group, _, _ := strings.Cut(fs.Name(), " ")
	if fs.NArg() == 0 || (group != "analyze" && group != "sim") {
		return nil
	}
	err := fmt.Errorf("rewind %s takes no arguments, got %q", fs.Name(), fs.Arg(0))
	if group == "sim" {
		return usageError{hinted{err, "rewind " + fs.Name() + " --out " + shellJoin(fs.Args()[:1])}}
	}
	return usageError{hinted{err, "rewind ingest " + shellJoin(fs.Args()) + " && rewind " + fs.Name()}}
}

// flagHint is a flag error with a Try line: the command line with the flag
// it most likely meant (--plannd → --planned), else the command's --help.
func flagHint(fs *pflag.FlagSet, args []string, err error) hinted {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return hinted{err, "rewind " + fs.Name() + " --help"}
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	s := suggest(name, names)
	if s == "" {
		return hinted{err, "rewind " + fs.Name() + " --help"}
	}
	return hinted{fmt.Errorf("%w: did you mean --%s?", err, s), "rewind " + fs.Name() + " " + shellJoin(renameFlag(args, name, s))}
}

// renameFlag returns args with --name (and --name=V) written as --to.
func renameFlag(args []string, name, to string) []string {
	fixed := make([]string, len(args))
	for i, a := range args {
		fixed[i] = a
		if a == "--"+name || strings.HasPrefix(a, "--"+name+"=") {
			fixed[i] = "--" + to + strings.TrimPrefix(a, "--"+name)
		}
	}
	return fixed
}

// fixFlags returns args with each flag that c does not take written as
// the one it most likely meant, for the Try line of a mistyped command:
// c runs with --help alone, its output discarded, to show its flag set.
func fixFlags(ctx context.Context, c command, args []string) []string {
	var fs *pflag.FlagSet
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
		sawFlags: func(f *pflag.FlagSet) {
			if fs == nil {
				fs = f
			}
		}}
	_ = c.run(ctx, e, []string{"--help"})
	if fs == nil {
		return args
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	for _, a := range args {
		name, ok := strings.CutPrefix(a, "--")
		name, _, _ = strings.Cut(name, "=")
		if !ok || name == "" || fs.Lookup(name) != nil {
			continue
		}
		if s := suggest(name, names); s != "" {
			args = renameFlag(args, name, s)
		}
	}
	return args
}

// shellJoin quotes the words that need it for a Try line.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.ContainsAny(a, " \t'\"$`\\*?;&|<>()") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// isTerminal tells whether w is a terminal (progress bars and pacing only then).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && progress.IsTerminal(f)
}

// cleanLines escapes control characters in text that may carry data (an
// error quoting a value, a run name), line by line: a message keeps its
// lines, but no ESC or BEL reaches the terminal.
func cleanLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = textsafe.Clean(l)
	}
	return strings.Join(lines, "\n")
}
