package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Every output flag takes "-" for stdout: a simulator's log then goes to
// stdout alone (its tables to stderr), ready for `rewind ingest -`.
func TestOutputFlagsTakeStdout(t *testing.T) {
	ctx := context.Background()
	for _, sim := range [][]string{
		{"sim", "storm", "--out", "-"},
		{"sim", "probes", "--out", "-"},
		{"sim", "chaos", "--out", "-", "--requests", "80", "--window", "20", "--start", "40"},
	} {
		var log, tables bytes.Buffer
		if code := run(ctx, sim, nil, &log, &tables); code != 0 {
			t.Fatalf("%v: exit %d: %s", sim, code, tables.String())
		}
		if tables.Len() == 0 || !strings.HasPrefix(log.String(), "{") {
			t.Errorf("%v: stdout %.40q…, stderr %d bytes: want the log on stdout and the tables on stderr", sim, log.String(), tables.Len())
		}
		db := filepath.Join(t.TempDir(), "p.duckdb")
		var out, errb bytes.Buffer
		if code := run(ctx, []string{"ingest", "--db", db, "-"}, &log, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "stdin-1: ") {
			t.Errorf("%v | rewind ingest -: exit %d, %s%s", sim, code, out.String(), errb.String())
		}
	}
}
