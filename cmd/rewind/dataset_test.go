package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
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
		if a == "--dataset" || a == "--save" || a == "--write" || strings.HasPrefix(a, "--html") || a == "--help" || a == "-h" {
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

// onDataset runs each command of a CLI case that reads the database again
// with --dataset in place of --db, on a dataset exported from the
// database at that point: it must print exactly the same (exit code, stdout
// and stderr but the flag itself), every analysis with its --by and stored
// parameters included.
var onDataset datasetRuns

type datasetRuns struct {
	exported map[string]string // a database's name, size and time: the dataset exported from it
	compared int
}

func (d *datasetRuns) reset() { d.exported = map[string]string{} }

func (d *datasetRuns) compare(t *testing.T, line string, args []string, want, wantErr string, wantCode int) {
	t.Helper()
	db, rest := dbArg(args)
	if !readsDatabase(args) {
		return
	}
	fi, err := os.Stat(db)
	if err != nil {
		return // no database yet: nothing to compare
	}
	stamp := fmt.Sprintf("%s %d %d", db, fi.Size(), fi.ModTime().UnixNano())
	if d.exported[stamp] == "" {
		ds := fmt.Sprintf("ds-%d.dataset", len(d.exported))
		if _, msg, code := runArgs([]string{"export", "--db", db, ds}); code != 0 {
			if wantCode != 0 {
				return // not a database to export (a SQLite file): the command failed on it too
			}
			t.Fatalf("export before %s: %s", line, msg)
		}
		d.exported[stamp] = ds
	}
	ds := d.exported[stamp]
	got, gotErr, gotCode := runArgs(append(rest, "--dataset", ds))
	gotErr = strings.ReplaceAll(gotErr, " --dataset "+ds, "")
	wantErr = strings.ReplaceAll(wantErr, " --db "+db, "")
	if got != want || gotCode != wantCode || gotErr != wantErr {
		t.Errorf("rewind %s\n--- on the database (exit %d):\n%s%s--- on the dataset (exit %d):\n%s%s", line, wantCode, want, wantErr, gotCode, got, gotErr)
	}
	d.compared++
}

func runArgs(args []string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}
