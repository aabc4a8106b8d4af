package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readsDatabase reports whether a CLI case's command only reads the
// database, so that --dataset may stand for its --db.
func readsDatabase(args []string) bool {
	if len(args) == 0 || !slices.Contains([]string{"analyze", "replay", "report"}, args[0]) || len(args) > 1 && args[1] == "bounds" {
		return false
	}
	for _, a := range args {
		if a == "--save" || a == "--write" || strings.HasPrefix(a, "--html") || a == "--help" || a == "-h" {
			return false
		}
	}
	if args[0] == "report" || args[0] == "replay" {
		for _, a := range args[1:] {
			if !strings.HasPrefix(a, "-") && (strings.Contains(a, "/") || strings.Contains(a, ".")) && !strings.Contains(a, "=") {
				return false // a report that ingests files first; replay of a live target
			}
		}
	}
	return true
}

// dbArg is the --db a command names (rewind.duckdb when none) and the
// arguments without it.
func dbArg(args []string) (string, []string) {
	db, out := "rewind.duckdb", []string{}
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--db" && i+1 < len(args):
			db = args[i+1]
			i++
		case strings.HasPrefix(args[i], "--db="):
			db = strings.TrimPrefix(args[i], "--db=")
		default:
			out = append(out, args[i])
		}
	}
	return db, out
}

// TestDatasetEqualsDatabase runs every CLI case (testdata/cli) and, for
// each command that reads the database, exports the database at that
// point and runs the command again with --dataset in place of --db: it
// must print exactly the same, every analysis with its --by and stored
// parameters included.
func TestDatasetEqualsDatabase(t *testing.T) {
	cases, err := filepath.Glob("testdata/cli/*/args")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, argsFile := range cases {
		argsFile, _ := filepath.Abs(argsFile)
		t.Run(filepath.Base(filepath.Dir(argsFile)), func(t *testing.T) {
			compared += compareCase(t, argsFile, root)
		})
	}
	if compared < 100 {
		t.Errorf("compared %d commands, want the analyses of every case", compared)
	}
}

func compareCase(t *testing.T, argsFile, root string) int {
	raw, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	t.Chdir(work)
	n := 0
	exported := map[string]string{} // a database's name, size and time: the dataset exported from it
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		args, err := splitArgs(strings.ReplaceAll(line, "$ROOT", root))
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr, wantCode := runArgs(args)
		db, rest := dbArg(args)
		if !readsDatabase(args) || wantCode == 1 && strings.Contains(wantErr, "does not exist") {
			continue
		}
		fi, err := os.Stat(db)
		if err != nil {
			continue // no database yet: nothing to compare
		}
		stamp := fmt.Sprintf("%s %d %d", db, fi.Size(), fi.ModTime().UnixNano())
		if exported[stamp] == "" {
			ds := fmt.Sprintf("ds-%d", i)
			if _, msg, code := runArgs([]string{"export", "--db", db, ds}); code != 0 {
				t.Fatalf("export before %s: %s", line, msg)
			}
			exported[stamp] = ds
		}
		ds := exported[stamp]
		got, gotErr, gotCode := runArgs(append(rest, "--dataset", ds))
		gotErr = strings.ReplaceAll(gotErr, " --dataset "+ds, "")
		wantErr = strings.ReplaceAll(wantErr, " --db "+db, "")
		if got != want || gotCode != wantCode || gotErr != wantErr {
			t.Errorf("rewind %s\n--- on the database (exit %d):\n%s%s--- on the dataset (exit %d):\n%s%s", line, wantCode, want, wantErr, gotCode, got, gotErr)
		}
		n++
	}
	return n
}

func runArgs(args []string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}
