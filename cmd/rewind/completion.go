package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/store"
)

const completionUsage = `Usage: rewind completion bash|zsh|fish

Print a shell completion script. It completes commands, analysis and
simulator names, each command's flags, --from formats, --format values and
experiment names read from the --db file (when it exists). Everything else
falls back to file names.

Examples:
  source <(rewind completion bash)            # in ~/.bashrc
  rewind completion zsh > "${fpath[1]}/_rewind"
  rewind completion fish > ~/.config/fish/completions/rewind.fish`

// The scripts ask the binary itself (rewind __complete WORDS...), so they
// never go stale: what they offer is what this rewind accepts.
var completionScripts = map[string]string{
	"bash": `# bash completion for rewind
_rewind() {
	local cur="${COMP_WORDS[COMP_CWORD]}" IFS=$'\n' out
	out=$(rewind __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
	if [ -n "$out" ]; then
		COMPREPLY=($(compgen -W "$out" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _rewind rewind
`,
	"zsh": `#compdef rewind
# zsh completion for rewind
_rewind() {
	local -a c
	c=("${(@f)$(rewind __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	if [[ -n "${c[1]}" ]]; then
		compadd -- "${c[@]}"
	else
		_files
	fi
}
compdef _rewind rewind
`,
	"fish": `# fish completion for rewind
function __rewind_complete
	set -l tokens (commandline -opc) (commandline -ct)
	rewind __complete $tokens[2..-1] 2>/dev/null
end
complete -c rewind -a '(__rewind_complete)'
`,
}

func init() {
	register(command{name: "completion", summary: "print a shell completion script (bash, zsh, fish)", run: runCompletion})
	register(command{name: "__complete", summary: "", run: runComplete})
}

func runCompletion(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "completion", completionUsage)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || completionScripts[fs.Arg(0)] == "" {
		return usageError{hinted{fmt.Errorf("want one shell: bash, zsh or fish"), "rewind completion bash"}}
	}
	_, err := io.WriteString(e.stdout, completionScripts[fs.Arg(0)])
	return err
}

// runComplete prints the candidates for the last of args (the word being
// typed), one per line; nothing means "complete file names".
func runComplete(ctx context.Context, e *env, args []string) error {
	for _, c := range completions(ctx, args) {
		fmt.Fprintln(e.stdout, c)
	}
	return nil
}

func completions(ctx context.Context, words []string) []string {
	if len(words) == 0 {
		words = []string{""}
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	if len(before) == 0 {
		return withPrefix(visibleCommands(), cur)
	}
	path := before[:1] // the command, and its subcommand for analyze and sim
	if g := groupOf(before[0]); g != nil {
		if len(before) == 1 {
			return withPrefix(sortedKeys(g.subs), cur)
		}
		path = before[:2]
	}
	switch prev := before[len(before)-1]; prev {
	case "--experiment", "-e":
		return withPrefix(experimentNames(ctx, before), cur)
	case "--from":
		return withPrefix(ingest.Formats, cur)
	case "--format", "-f":
		if before[0] == "report" {
			return withPrefix(reportFormats, cur)
		}
		return withPrefix(analyze.Formats, cur)
	case "--metric":
		return withPrefix(hypothesis.Metrics, cur)
	case "--stop-on":
		return withPrefix([]string{"burn-rate", "windows"}, cur)
	}
	if before[0] == "completion" {
		return withPrefix(sortedKeys(completionScripts), cur)
	}
	if strings.HasPrefix(cur, "-") {
		return withPrefix(flagsOf(ctx, path), cur)
	}
	return nil
}

func visibleCommands() []string {
	var out []string
	for n := range commands {
		if !strings.HasPrefix(n, "__") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func groupOf(name string) *group {
	switch name {
	case "analyze":
		return analyses
	case "sim":
		return sims
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func withPrefix(xs []string, prefix string) []string {
	var out []string
	for _, x := range xs {
		if strings.HasPrefix(x, prefix) {
			out = append(out, x)
		}
	}
	return out
}

var flagLine = regexp.MustCompile(`(?m)^\s+(?:-(\w), )?--([\w-]+)`)

// flagsOf reads a command's flags from its own --help, so completion offers
// exactly what the command parses.
func flagsOf(ctx context.Context, path []string) []string {
	var out bytes.Buffer
	run(ctx, append(slices.Clone(path), "--help"), nil, &out, io.Discard)
	var flags []string
	for _, m := range flagLine.FindAllStringSubmatch(out.String(), -1) {
		// a usage text's examples may start a line with a flag too
		if f := "--" + m[2]; !slices.Contains(flags, f) {
			flags = append(flags, f)
		}
	}
	return flags
}

// experimentNames lists the experiments of the --db the words name (or the
// default), when that file exists; a lock or any error gives none.
func experimentNames(ctx context.Context, words []string) []string {
	path := store.DefaultDB
	for i, w := range words {
		if w == "--db" && i+1 < len(words) {
			path = words[i+1]
		} else if v, ok := strings.CutPrefix(w, "--db="); ok {
			path = v
		}
	}
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		return nil
	}
	defer db.Close()
	names, _ := store.Experiments(store.WithContext(ctx, db))
	return names
}
