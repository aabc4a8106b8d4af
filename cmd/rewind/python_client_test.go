package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/queries"
)

// pythons are the Python interpreters with DuckDB's package that .ci/python
// sets up (REWIND_PYTHONS, space-separated): the version rewind links and the
// newest. Without them the tests skip, except in CI, where they must run.
func pythons(t *testing.T) []string {
	t.Helper()
	list := strings.Fields(os.Getenv("REWIND_PYTHONS"))
	if len(list) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("REWIND_PYTHONS is not set: .ci/run sets it from .ci/python")
		}
		t.Skip("REWIND_PYTHONS is not set (bash .ci/python prints the interpreters)")
	}
	return list
}

// clientCalls call every public table macro of the library on the
// experiment whose rows give it something to answer.
var clientCalls = []string{
	`SELECT count(*) AS n FROM experiment_window('gunluk', 200) WHERE tag_hash(20260731, req) < 0.05`,
	`SELECT * FROM blast_radius('gunluk', 200, 11)`,
	`SELECT * FROM falsification('gunluk', size_n := 40)`,
	`SELECT * FROM falsification_by('gunluk', {'odd': req % 2}, size_n := 20)`,
	`SELECT * FROM stop_damage('gunluk', size_n := 40)`,
	`SELECT * FROM stop_damage_by('gunluk', {'odd': req % 2}, size_n := 20)`,
	`SELECT * FROM windows('gunluk', 'experiment', size_n := 40)`,
	`SELECT * FROM side_windows('gunluk', role_name := 'experiment', size_n := 40)`,
	`SELECT * FROM hypothesis_sweep('checkout', [{'f': 1000000::HUGEINT, 'a': 0::HUGEINT}], size_n := 40)`,
	`SELECT * FROM hypothesis_sweep_by('checkout', {'third': req % 3}, [{'f': 1000000::HUGEINT, 'a': 0::HUGEINT}], size_n := 40)`,
	`SELECT * FROM peaks('sekil1', [100, 1000])`,
	`SELECT * FROM peaks_by('sekil1', {'odd': seq % 2}, [100, 1000])`,
	`SELECT * FROM amplification('tiny')`,
	`SELECT * FROM amplification_by('tiny', {'status': status})`,
	`SELECT * FROM retries('tiny-2', 0, 1000)`,
	`SELECT * FROM retries_by('tiny-2', {'odd': seq % 2}, 0, 1000)`,
	`SELECT * FROM burn_rate('checkout', (outcome = 'ok'))`,
	`SELECT * FROM burn_rate_by('checkout', {'odd': req % 2}, (outcome = 'ok'))`,
	`SELECT * FROM judge('checkout')`,
	`SELECT * FROM judge_by('checkout', {'odd': req % 2})`,
	`SELECT * FROM gate('checkout', 'experiment', [0, 60000], [60000, 120000])`,
	`SELECT * FROM thresholds('chaos', ` + clientSpecs + `)`,
	`SELECT * FROM threshold_windows('chaos', ` + clientSpecs + `, 1000)`,
	`SELECT * FROM omission('input')`,
	`SELECT * FROM omission_windows('input')`,
	`SELECT * FROM omission_requests('input')`,
	`SELECT * FROM omission_dropped('k6-dropped')`,
	`SELECT * FROM omission_backfill('input')`,
	`SELECT * FROM probes('probes')`,
	`SELECT * FROM changes_series('checkout', 1000)`,
	`SELECT * FROM changes_series_by('checkout', {'odd': req % 2}, 1000)`,
}

var tableMacroRE = regexp.MustCompile(`(?ms)^CREATE OR REPLACE MACRO ([a-z][a-z_0-9]*)\([^;]*?\) AS TABLE`)

const clientSpecs = `[{id: 1, name: 'http_req_duration', metric: 'http_req_duration', tags: []::STRUCT(k VARCHAR, v VARCHAR)[], kind: 'trend', agg: 'p', q: 0.95, op: '<', vd: 200::DOUBLE, vx: 200::DECIMAL(38,9), abort: false, delay_ns: NULL::BIGINT, source: 'p(95)<200'}]`

// TestPythonClients backs docs/database.md's claim that any DuckDB client
// reads rewind's file: Python's duckdb, at the version rewind links and at the
// newest, opens a file rewind wrote read-only and calls every public macro
// stored in it (no rewind code runs in that process), with the rows
// `rewind sql --format json` prints for the same query.
func TestPythonClients(t *testing.T) {
	interpreters := pythons(t)
	for _, f := range queries.Files() {
		for _, m := range tableMacroRE.FindAllStringSubmatch(f.SQL, -1) {
			if !slices.ContainsFunc(clientCalls, func(q string) bool { return strings.Contains(q, " "+m[1]+"(") }) {
				t.Errorf("the public macro %s (%s.sql) has no call in clientCalls", m[1], f.Name)
			}
		}
	}
	db := clientDB(t)
	calls, err := json.Marshal(clientCalls)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]any, len(clientCalls))
	for i, q := range clientCalls {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), []string{"sql", "--db", db, "--format", "json", q}, nil, &out, &errOut); code != 0 {
			t.Fatalf("rewind sql %s: exit %d: %s", q, code, errOut.String())
		}
		if want[i], err = decode(out.Bytes()); err != nil {
			t.Fatalf("rewind sql %s: %v", q, err)
		}
	}
	script, _ := filepath.Abs("testdata/python/client.py")
	for _, py := range interpreters {
		cmd := exec.Command(py, script, db)
		cmd.Stdin = bytes.NewReader(calls)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", py, err)
		}
		var got struct {
			Version string
			Results []struct {
				Rows  json.RawMessage
				Error string
			}
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %v", py, err)
		}
		for i, r := range got.Results {
			if r.Error != "" {
				t.Errorf("duckdb %s: %s: %s", got.Version, clientCalls[i], r.Error)
				continue
			}
			rows, err := decode(r.Rows)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows.([]any)) == 0 {
				t.Errorf("duckdb %s: %s: no rows (the call should answer something)", got.Version, clientCalls[i])
			}
			if msg := sameJSON(want[i], rows, ""); msg != "" {
				t.Errorf("duckdb %s: %s:%s", got.Version, clientCalls[i], msg)
			}
		}
		t.Logf("Python duckdb %s: %d calls, the same rows", got.Version, len(got.Results))
	}
}

// clientDB is a rewind file holding the fixtures every call reads.
func clientDB(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "clients.duckdb")
	probes := filepath.Join(dir, "probes.ndjson")
	steps := [][]string{
		{"sim", "probes", "--out", probes},
		{"ingest", "--db", db, "../../fixtures/chaos/gunluk.json", "../../fixtures/k6/chaos.json",
			"../../fixtures/storm/tiny.ndjson", "../../fixtures/retry/tiny.ndjson", "../../fixtures/peaks/sekil1.csv",
			"../../fixtures/hypotheses/checkout.ndjson", "../../ingest/testdata/real/vegeta/json-ratelimiter/input.json", probes,
			"testdata/cli/omission/k6-dropped.json"},
	}
	for _, args := range steps {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
			t.Fatalf("rewind %v: exit %d: %s", args, code, errOut.String())
		}
	}
	return db
}

// decode reads JSON keeping numbers as written; the Python side's exact
// numbers ({"decimal": "12"}) and times ({"time": "…"}) become the same.
func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return unwrap(v), nil
}

func unwrap(v any) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = unwrap(x[i])
		}
	case map[string]any:
		if len(x) == 1 {
			if s, ok := x["decimal"].(string); ok {
				return json.Number(s)
			}
			if s, ok := x["time"].(string); ok {
				if tm, err := time.Parse(time.RFC3339Nano, s); err == nil {
					return tm.UTC().Format(time.RFC3339Nano)
				}
				return s
			}
		}
		for k := range x {
			x[k] = unwrap(x[k])
		}
	case string:
		if tm, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return tm.UTC().Format(time.RFC3339Nano)
		}
	}
	return v
}

// sameJSON says where want and got differ ("" when nowhere). Numbers are
// equal when they are the same value: exactly, as rationals.
func sameJSON(want, got any, at string) string {
	switch w := want.(type) {
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return fmt.Sprintf("\n%s: want %v, got %v", at, w, got)
		}
		rw, okw := new(big.Rat).SetString(string(w))
		rg, okg := new(big.Rat).SetString(string(g))
		if !okw || !okg || rw.Cmp(rg) != 0 {
			return fmt.Sprintf("\n%s: want %v, got %v", at, w, g)
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("\n%s: want %d values, got %v", at, len(w), got)
		}
		var msg string
		for i := range w {
			msg += sameJSON(w[i], g[i], fmt.Sprintf("%s[%d]", at, i))
		}
		return msg
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("\n%s: want %v, got %v", at, w, got)
		}
		var msg string
		for k := range w {
			msg += sameJSON(w[k], g[k], at+"."+k)
		}
		return msg
	case string:
		if _, ok := got.(string); !ok && (strings.HasPrefix(w, "{") || strings.HasPrefix(w, "[")) {
			// rewind sql prints a struct or list as its JSON text
			v, err := decode([]byte(w))
			if err != nil {
				return fmt.Sprintf("\n%s: want %s, got %v", at, w, got)
			}
			return sameJSON(v, got, at)
		}
		if w != got {
			return fmt.Sprintf("\n%s: want %q, got %v", at, w, got)
		}
		return ""
	default:
		if fmt.Sprint(want) != fmt.Sprint(got) {
			return fmt.Sprintf("\n%s: want %v, got %v", at, want, got)
		}
		return ""
	}
}
