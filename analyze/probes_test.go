package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/sim/probes"
	"github.com/rewind-dev/rewind/store"
)

// probesRow holds the columns of the seed's settings table. The sweep
// tables show only detection, killed, loop and in service; for those rows
// the other fields stay zero on both sides (see seedColumns).
type probesRow struct {
	Setting                                            string
	Restarts, Unnecessary, Killed, Loop, Early, Errors int64
	InService                                          string // as the table shows it: 2 decimals
	Detection                                          []int64
}

// seedProbes are the seed's printed tables (seed 001), typed in by hand, in
// the order the seed prints them: the four settings, then the liveness sweep
// (period × threshold) without and then with the startup probe. Nothing here
// comes from the simulator's own counters.
func seedProbes() []probesRow {
	rows := []probesRow{
		{"no probes", 0, 0, 0, 0, 300, 1408, "6.79", []int64{}},
		{"single combined probe", 23, 21, 20, 2, 0, 330, "5.89", []int64{10, 10}},
		{"liveness + readiness", 22, 20, 20, 2, 0, 0, "5.89", []int64{10, 10}},
		{"plus startup", 2, 0, 0, 0, 0, 0, "7.39", []int64{10, 10}},
	}
	type sweep struct {
		period, threshold int
		detection         []int64
		killed, loop      int64
		inService         string
	}
	without := []sweep{
		{2, 2, []int64{2, 2}, 113, 4, "5.29"},
		{2, 3, []int64{4, 4}, 52, 2, "5.96"},
		{2, 6, []int64{10, 10}, 26, 2, "5.89"},
		{5, 2, []int64{5, 5}, 32, 2, "5.94"},
		{5, 3, []int64{10, 10}, 20, 2, "5.89"},
		{5, 6, []int64{25, 25}, 0, 0, "7.22"},
		{10, 2, []int64{10, 10}, 16, 2, "5.89"},
		{10, 3, []int64{20, 20}, 2, 0, "7.06"},
		{10, 6, []int64{50}, 0, 0, "7.03"},
	}
	with := []sweep{
		{2, 2, []int64{2, 2}, 0, 0, "7.48"},
		{2, 3, []int64{4, 4}, 0, 0, "7.46"},
		{2, 6, []int64{10, 10}, 0, 0, "7.39"},
		{5, 2, []int64{5, 5}, 0, 0, "7.44"},
		{5, 3, []int64{10, 10}, 0, 0, "7.39"},
		{5, 6, []int64{25, 25}, 0, 0, "7.22"},
		{10, 2, []int64{10, 10}, 0, 0, "7.39"},
		{10, 3, []int64{20, 20}, 0, 0, "7.28"},
		{10, 6, []int64{50}, 0, 0, "7.03"},
	}
	for _, s := range without {
		name := fmt.Sprintf("sweep liveness period %d threshold %d", s.period, s.threshold)
		rows = append(rows, probesRow{Setting: name, Killed: s.killed, Loop: s.loop, InService: s.inService, Detection: s.detection})
	}
	for _, s := range with {
		name := fmt.Sprintf("sweep liveness period %d threshold %d + startup", s.period, s.threshold)
		rows = append(rows, probesRow{Setting: name, Killed: s.killed, Loop: s.loop, InService: s.inService, Detection: s.detection})
	}
	return rows
}

// TestProbesSeedTables writes the seed scenario's log with the sweep,
// ingests it and checks that the analysis, reading the database alone,
// prints the seed's tables.
func TestProbesSeedTables(t *testing.T) {
	db := probesDB(t)
	res, err := Probes(db, ProbesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := probesRows(t, res)
	for i := 4; i < len(got); i++ { // the sweep tables leave these columns out
		got[i].Restarts, got[i].Unnecessary, got[i].Early, got[i].Errors = 0, 0, 0, 0
	}
	if diff := cmp.Diff(seedProbes(), got); diff != "" {
		t.Errorf("probes tables (-want +got):\n%s", diff)
	}
	wantCols := []string{"setting", "restarts", "unnecessary_restarts", "killed_during_startup", "in_restart_loop",
		"early_errors", "errors", "in_service", "detection_rounds"}
	var gotCols []string
	for _, c := range res.Columns {
		gotCols = append(gotCols, c.Name)
	}
	if diff := cmp.Diff(wantCols, gotCols); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
}

// probesDB returns a database holding the seed scenario's log with the sweep.
func probesDB(t *testing.T) store.Querier {
	t.Helper()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "probes.ndjson")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := probes.Simulate(probes.Config{Scenario: probes.Default(), Sweep: true}, f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return ingestedDB(t, logPath)
}

// probesRows reads a Probes result; in_service as the table prints it.
func probesRows(t *testing.T, res *Result) []probesRow {
	t.Helper()
	var rows []probesRow
	for _, row := range res.Rows {
		rows = append(rows, probesRow{
			Setting: row[0].(string), Restarts: row[1].(int64), Unnecessary: row[2].(int64), Killed: row[3].(int64),
			Loop: row[4].(int64), Early: row[5].(int64), Errors: row[6].(int64),
			InService: strconv.FormatFloat(row[7].(float64), 'f', 2, 64), Detection: int64s(t, row[8]),
		})
	}
	return rows
}

func int64s(t *testing.T, v any) []int64 {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("detection_rounds: got %T, want a list", v)
	}
	out := []int64{}
	for _, e := range list {
		out = append(out, e.(int64))
	}
	return out
}
