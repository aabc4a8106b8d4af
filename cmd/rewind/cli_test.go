package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/golden"
)

// TestCLI runs the end-to-end cases under testdata/cli, and each command
// that reads the database again on a dataset exported from it
// (dataset_test.go). A case is a folder:
//
//	args    one rewind command per line (shell-like quoting); $ROOT is the
//	        repository root. All run in one fresh temp directory, so the
//	        default database rewind.duckdb starts empty.
//	stdout  golden: what the commands printed, each block headed "$ args"
//	stderr  golden: likewise for stderr, with the exit code
//
// go test ./cmd/rewind -update rewrites the goldens.
func TestCLI(t *testing.T) {
	cases, err := filepath.Glob("testdata/cli/*/args")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ran := 0 // cases run (-run may pick some)
	for _, argsFile := range cases {
		dir, _ := filepath.Abs(filepath.Dir(argsFile))
		argsFile := filepath.Join(dir, "args")
		t.Run(filepath.Base(dir), func(t *testing.T) {
			ran++
			stdout, stderr := runCase(t, argsFile, root)
			golden.Check(t, filepath.Join(dir, "stdout"), []byte(stdout))
			golden.Check(t, filepath.Join(dir, "stderr"), []byte(stderr))
		})
	}
	if ran > 50 && onDataset.compared < 100 {
		t.Errorf("compared %d commands on a dataset, want the analyses of every case", onDataset.compared)
	}
}

func runCase(t *testing.T, argsFile, root string) (string, string) {
	t.Helper()
	raw, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	t.Chdir(work)
	onDataset.reset()
	var stdout, stderr bytes.Buffer
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		args, err := splitArgs(strings.ReplaceAll(line, "$ROOT", root))
		if err != nil {
			t.Fatalf("%s: %v", argsFile, err)
		}
		var out, errOut bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
		onDataset.compare(t, line, args, out.String(), errOut.String(), code)
		fmt.Fprintf(&stdout, "$ rewind %s\n%s", line, out.String())
		fmt.Fprintf(&stderr, "$ rewind %s\n%s[exit %d]\n", line, errOut.String(), code)
	}
	clean := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, root, "$ROOT"), work, "$WORK") }
	return clean(stdout.String()), clean(stderr.String())
}

// splitArgs splits a command line on spaces, honouring single and double
// quotes (no escapes inside single quotes, like a shell).
func splitArgs(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inArg := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inArg = r, true
		case r == ' ' || r == '\t':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed quote in %q", s)
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args, nil
}
