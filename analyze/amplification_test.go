package analyze_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/internal/seedtables"
	"github.com/rewind-dev/rewind/sim/storm"
	"github.com/rewind-dev/rewind/store"
)

// ampDB ingests the files into a fresh database.
func ampDB(t *testing.T, paths ...string) store.Querier {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "t.duckdb"), store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := ingest.Files(ctx, db, ingest.Options{}, paths); err != nil {
		t.Fatal(err)
	}
	return db
}

// ampStormLog writes the log of sim storm for the given scenarios to a temp
// file, keeping only the lines keep accepts.
func ampStormLog(t *testing.T, scenarios []string, keep func(line string) bool) string {
	t.Helper()
	cfg := storm.DefaultConfig()
	var err error
	if cfg.Scenarios, err = storm.SelectScenarios(scenarios); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := storm.Measure(context.Background(), cfg, &buf); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line != "" && keep(line) {
			out.WriteString(line)
		}
	}
	path := filepath.Join(t.TempDir(), "storm.ndjson")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func ampKeepAll(string) bool { return true }

// ampSeedCells prints a row in the seed's layout and precision.
func ampSeedCells(t *testing.T, r *analyze.Result, row []any) string {
	t.Helper()
	cell := func(name string) any { return row[r.Col(name)] }
	fixed := func(v any, digits int) string { return strconv.FormatFloat(v.(float64), 'f', digits, 64) }
	s := []string{
		ampInt(cell("allowed")), ampInt(cell("calls")), "x" + fixed(cell("multiplier"), 2),
		ampInt(cell("peak_calls_per_tick")), ampInt(cell("succeeded")), ampInt(cell("dropped")),
	}
	if rate := cell("window_calls_per_tick"); rate != nil {
		s = append(s, fixed(rate, 2), "x"+fixed(cell("x_normal"), 1))
	}
	return strings.Join(s, " ")
}

func ampInt(v any) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatInt(v.(int64), 10)
}

func ampColumn(r *analyze.Result, name string) []any {
	var out []any
	for _, row := range r.Rows {
		out = append(out, row[r.Col(name)])
	}
	return out
}

// The seed's tables come back from the log alone, with every default taken
// from the stored run parameters, in the order sim storm wrote the runs.
func TestAmplificationSeedTables(t *testing.T) {
	db := ampDB(t, ampStormLog(t, []string{"healthy", "outage", "degradation"}, ampKeepAll))
	r, err := analyze.Amplification(db, analyze.AmplificationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, row := range r.Rows {
		got[row[r.Col("run")].(string)] = ampSeedCells(t, r, row)
	}
	if diff := cmp.Diff(seedtables.Storm, got); diff != "" {
		t.Errorf("tables differ from the seed (-want +got):\n%s", diff)
	}
	wantOrder := []any{"denemesiz|saglikli", "yalniz gecit (3)|saglikli"} // scenario-major, like the seed
	if diff := cmp.Diff(wantOrder, ampColumn(r, "run")[:2]); diff != "" {
		t.Errorf("row order (-want +got):\n%s", diff)
	}
}

// fixtures/storm/tiny.ndjson, counted by hand. Run b has no run line: its
// tick and normal rate fall back to the experiment's, and it has no window.
// Run a stores allowed 3 and the fault window [20, 40) ms; its req 2 row has
// count 3; req 3 and req 4 leave retried out, so req 3's later attempt makes
// its first call retried and req 4's error is dropped; req 5 timed out.
//
//	run b: ticks 0:{0,5} 1:{12,14}                  peak 2
//	run a: ticks 0:{0,0} 2:{20,25×3} 3:{30,30,35}    peak 4
//	       4:{45} 5:{50}; window [20,40) holds 7 calls in 2 ticks = 3.5 = 1.75 × 2
var ampTinyWant = [][]any{
	{"b", nil, int64(3), int64(4), 4.0 / 3, int64(2), int64(2), int64(1), nil, nil},
	{"a", int64(3), int64(8), int64(11), 11.0 / 8, int64(4), int64(5), int64(3), 3.5, 1.75},
}

func ampTinyDB(t *testing.T) store.Querier {
	t.Helper()
	return ampDB(t, filepath.Join("..", "fixtures", "storm", "tiny.ndjson"))
}

func TestAmplificationTiny(t *testing.T) {
	r, err := analyze.Amplification(ampTinyDB(t), analyze.AmplificationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []string{"run", "allowed", "requests", "calls", "multiplier", "peak_calls_per_tick",
		"succeeded", "dropped", "window_calls_per_tick", "x_normal"}
	var cols []string
	for _, c := range r.Columns {
		cols = append(cols, c.Name)
	}
	if diff := cmp.Diff(wantCols, cols); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ampTinyWant, r.Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// Flags override the stored parameters for every run. With 5 ms ticks:
//
//	run b: ticks 0:{0} 1:{5} 2:{12,14}; window [0,20) holds 4 calls in 4 ticks
//	run a: ticks 0:{0,0} 4:{20} 5:{25×3} 6:{30,30} 7:{35} 9:{45} 10:{50};
//	       window [0,20) holds 2 calls in 4 ticks
func TestAmplificationFlagsOverride(t *testing.T) {
	r, err := analyze.Amplification(ampTinyDB(t), analyze.AmplificationOptions{
		TickMs: 5, Fault: hypothesis.Span{FromMs: 0, ToMs: 20}, NormalRate: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{"b", nil, int64(3), int64(4), 4.0 / 3, int64(2), int64(2), int64(1), 1.0, 1.0},
		{"a", int64(3), int64(8), int64(11), 11.0 / 8, int64(3), int64(5), int64(3), 0.5, 0.5},
	}
	if diff := cmp.Diff(want, r.Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestAmplificationRunsGlob(t *testing.T) {
	db := ampTinyDB(t)
	r, err := analyze.Amplification(db, analyze.AmplificationOptions{Runs: "[a]"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ampTinyWant[1:], r.Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	_, err = analyze.Amplification(db, analyze.AmplificationOptions{Runs: "z*"})
	want := `experiment "tiny" has no run matching "z*"`
	if err == nil || err.Error() != want {
		t.Errorf("got error %v, want %q", err, want)
	}
}

// A log whose runs store no parameters (no experiment or run lines): the
// flags alone give the seed's outage table; without them the columns that
// need a tick, a window or a normal rate stay NULL.
func TestAmplificationFlagsOnly(t *testing.T) {
	path := ampStormLog(t, []string{"outage"}, func(line string) bool { return !strings.HasPrefix(line, `{"record":`) })
	db := ampDB(t, path)
	r, err := analyze.Amplification(db, analyze.AmplificationOptions{
		Experiment: "storm", TickMs: 10, Fault: hypothesis.Span{FromMs: 5000, ToMs: 6000}, NormalRate: 0.9722,
	})
	if err != nil {
		t.Fatal(err)
	}
	want, got := map[string]string{}, map[string]string{}
	for run, cells := range seedtables.Storm {
		if strings.HasSuffix(run, "|kesinti (1 s)") {
			_, rest, _ := strings.Cut(cells, " ")
			want[run] = "- " + rest // no stored allowed
		}
	}
	for _, row := range r.Rows {
		got[row[r.Col("run")].(string)] = ampSeedCells(t, r, row)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outage table from flags only (-want +got):\n%s", diff)
	}
	bare, err := analyze.Amplification(db, analyze.AmplificationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"allowed", "peak_calls_per_tick", "window_calls_per_tick", "x_normal"} {
		if diff := cmp.Diff(make([]any, 5), ampColumn(bare, name)); diff != "" {
			t.Errorf("%s without params or flags (-want +got):\n%s", name, diff)
		}
	}
}

// A stored window that ends before it starts is an error, not a negative rate.
func TestAmplificationReversedWindow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rev.ndjson")
	log := `{"record":"run","experiment":"rev","run":"r","params":{"tick_ms":10,"fault_from_ms":40,"fault_to_ms":20}}
{"experiment":"rev","run":"r","req":0,"attempt":0,"t_ms":0,"outcome":"ok"}
`
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := analyze.Amplification(ampDB(t, path), analyze.AmplificationOptions{})
	if err == nil || !strings.Contains(err.Error(), "amplification: run r: fault window ends before it starts") {
		t.Errorf("got error %v, want the reversed window named", err)
	}
}

func TestParseSpan(t *testing.T) {
	good := map[string]hypothesis.Span{
		"5000ms..6000ms": {FromMs: 5000, ToMs: 6000},
		"5s..6s":         {FromMs: 5000, ToMs: 6000},
		" 0s .. 1.5s ":   {FromMs: 0, ToMs: 1500},
		"250us..1ms":     {FromMs: 0.25, ToMs: 1},
		"8500..15000":    {FromMs: 8500, ToMs: 15000}, // plain numbers are ms
		"0.0001..0.1s":   {FromMs: 0.0001, ToMs: 100},
	}
	for in, want := range good {
		got, err := hypothesis.ParseSpan(in)
		if err != nil || got != want {
			t.Errorf("ParseSpan(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"5s":      `span "5s": want FROM..TO, e.g. 5s..6s`,
		"5x..6s":  `span "5x..6s": "5x" is not a duration (5s, 5000ms) or a number of ms`,
		"-1s..1s": `span "-1s..1s": "-1s" is not a duration (5s, 5000ms) or a number of ms`,
		"6s..5s":  `span "6s..5s": the end must come after the start`,
		"5s..5s":  `span "5s..5s": the end must come after the start`,
		"NaN..1s": `span "NaN..1s": "NaN" is not a duration (5s, 5000ms) or a number of ms`,
		"0..inf":  `span "0..inf": "inf" is not a duration (5s, 5000ms) or a number of ms`,
	}
	for in, want := range bad {
		if _, err := hypothesis.ParseSpan(in); err == nil || err.Error() != want {
			t.Errorf("ParseSpan(%q) error %v, want %q", in, err, want)
		}
	}
}
