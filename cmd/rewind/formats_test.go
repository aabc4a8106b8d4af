package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rowCommands are the commands that print rows, each with a command line
// that prints some; every one takes --format table, json and csv.
func rowCommands(root, db string) map[string][]string {
	gunluk := filepath.Join(root, "fixtures/chaos/gunluk.json")
	return map[string][]string{
		"ingest":  {"ingest", "--db", "", gunluk}, // a fresh database each time
		"sql":     {"sql", "--db", db, "SELECT run, min(ts) AS first_ts FROM requests GROUP BY run ORDER BY run"},
		"replay":  {"replay", "--db", db},
		"watch":   {"watch", filepath.Join(root, "fixtures/chaos/live-experiment.ndjson"), "--baseline-share", "0.96", "--window", "40", "--until-eof"},
		"analyze": {"analyze", "stop-damage", "--db", db},
	}
}

// Every command that prints rows takes the three formats and prints them
// alike: json one array of objects with the same keys, csv a header and
// records as wide, table neither.
func TestEveryRowCommandTakesThreeFormats(t *testing.T) {
	ctx := context.Background()
	root, _ := filepath.Abs("../..")
	dir := t.TempDir()
	db := filepath.Join(dir, "r.duckdb")
	if code := run(ctx, []string{"ingest", "--db", db, filepath.Join(root, "fixtures/chaos/gunluk.json")}, nil, &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatal("ingest failed")
	}
	for name, args := range rowCommands(root, db) {
		for _, format := range []string{"table", "json", "csv"} {
			args := slices.Clone(args)
			if name == "ingest" {
				args[2] = filepath.Join(dir, name+format+".duckdb")
			}
			var out, errb bytes.Buffer
			code := run(ctx, append(args, "--format", format), nil, &out, &errb)
			if code != exitOK && code != exitStop {
				t.Errorf("%s --format %s: exit %d: %s", name, format, code, errb.String())
				continue
			}
			if err := checkRows(format, out.String()); err != nil {
				t.Errorf("%s --format %s: %v\n%s", name, format, err, out.String())
			}
		}
	}
}

// checkRows tells whether out is rows in format.
func checkRows(format, out string) error {
	switch format {
	case "json":
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			return err
		}
		if len(rows) == 0 {
			return errorf("no rows")
		}
		for _, r := range rows {
			if len(r) != len(rows[0]) {
				return errorf("objects with different keys")
			}
		}
	case "csv":
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll() // fails on records of another width
		if err != nil {
			return err
		}
		if len(recs) < 2 {
			return errorf("no rows under the header")
		}
	default:
		if out == "" || strings.HasPrefix(out, "[") || json.Valid([]byte(out)) {
			return errorf("not a table")
		}
	}
	return nil
}

type errorf string

func (e errorf) Error() string { return string(e) }

// A command that has --format is one of rowCommands (or report, whose
// document is text or JSON), and every analysis takes the same flag: a new
// command with rows cannot print them its own way unnoticed.
func TestFormatFlagOnRowCommandsOnly(t *testing.T) {
	rows := rowCommands("", "")
	for name := range commands {
		if strings.HasPrefix(name, "__") || name == "analyze" {
			continue
		}
		help := helpOf(t, name)
		_, listed := rows[name]
		listed = listed || name == "report" // a document: table (text) or json
		if has := strings.Contains(help, "-f, --format string"); has != listed {
			t.Errorf("rewind %s: --format in its help %v, among the commands with rows or a report %v", name, has, listed)
		}
		if listed && !strings.Contains(help, "table") {
			t.Errorf("rewind %s --help: --format does not name table, json and csv", name)
		}
	}
	for name := range analyses.subs {
		if help := helpOf(t, "analyze", name); !strings.Contains(help, formatHelp) {
			t.Errorf("rewind analyze %s: no --format %q", name, formatHelp)
		}
	}
}

func helpOf(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	run(context.Background(), append(args, "--help"), nil, &out, &errb)
	return out.String()
}
