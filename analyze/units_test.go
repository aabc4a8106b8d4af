package analyze

import (
	"regexp"
	"slices"
	"testing"

	"github.com/rewind-dev/rewind/queries"
	"github.com/rewind-dev/rewind/store"
)

// unitCalls calls every public table macro of queries/ with the fewest
// arguments that bind, for DESCRIBE.
var unitCalls = map[string]string{
	"amplification":       `amplification('x')`,
	"amplification_by":    `amplification_by('x', true)`,
	"blast_radius":        `blast_radius('x', NULL::DOUBLE, 0)`,
	"changes_series":      `changes_series('x', 1000)`,
	"changes_series_by":   `changes_series_by('x', true, 1000)`,
	"burn_rate":           `burn_rate('x', (outcome = 'ok'))`,
	"burn_rate_by":        `burn_rate_by('x', true, (outcome = 'ok'))`,
	"experiment_window":   `experiment_window('x', NULL::DOUBLE)`,
	"falsification":       `falsification('x', size_n := 10)`,
	"falsification_by":    `falsification_by('x', true, size_n := 10)`,
	"gate":                `gate('x', 'experiment', [0], [1000])`,
	"hypothesis_sweep":    `hypothesis_sweep('x', [{'f': 1000000::HUGEINT, 'a': 0::HUGEINT}], size_n := 10)`,
	"hypothesis_sweep_by": `hypothesis_sweep_by('x', true, [{'f': 1000000::HUGEINT, 'a': 0::HUGEINT}], size_n := 10)`,
	"judge":               `judge('x')`,
	"judge_by":            `judge_by('x', true)`,
	"omission":            `omission('x')`,
	"omission_backfill":   `omission_backfill('x')`,
	"omission_dropped":    `omission_dropped('x')`,
	"omission_requests":   `omission_requests('x')`,
	"omission_windows":    `omission_windows('x')`,
	"peaks":               `peaks('x', [100])`,
	"peaks_by":            `peaks_by('x', run, [100])`,
	"probes":              `probes('x')`,
	"retries":             `retries('x', 0, 1000)`,
	"retries_by":          `retries_by('x', true, 0, 1000)`,
	"side_windows":        `side_windows('x', size_n := 10)`,
	"stop_damage":         `stop_damage('x', size_n := 10)`,
	"stop_damage_by":      `stop_damage_by('x', true, size_n := 10)`,
	"threshold_windows":   `threshold_windows('x', ` + unitSpecs + `, 1000)`,
	"thresholds":          `thresholds('x', ` + unitSpecs + `)`,
	"windows":             `windows('x', 'experiment', size_n := 10)`,
}

const unitSpecs = `[{id: 1, name: 'http_req_duration', metric: 'http_req_duration', tags: []::STRUCT(k VARCHAR, v VARCHAR)[], kind: 'trend', agg: 'p', q: 0.95, op: '<', vd: 200::DOUBLE, vx: 200::DECIMAL(38,9), abort: false, delay_ns: NULL::BIGINT, source: 'p(95)<200'}]`

var tableMacroRE = regexp.MustCompile(`(?ms)^CREATE OR REPLACE MACRO ([a-z][a-z_0-9]*)\([^;]*?\) AS TABLE`)

// TestUnitsMatchDescribe: every public table macro's "-- Units:" line names
// exactly the columns DESCRIBE gives, in order, each with a unit or "-"
// (experiment_window returns rows of requests, which schema.sql documents).
func TestUnitsMatchDescribe(t *testing.T) {
	db := ingestedDB(t)
	for _, f := range queries.Files() {
		for _, m := range tableMacroRE.FindAllStringSubmatch(f.SQL, -1) {
			macro := m[1]
			if macro == "experiment_window" {
				continue
			}
			call, ok := unitCalls[macro]
			if !ok {
				t.Errorf("macro %s (%s.sql): no call in unitCalls", macro, f.Name)
				continue
			}
			var declared []string
			for _, u := range queries.Declared(macro) {
				declared = append(declared, u.Column)
			}
			if got := describe(t, db, call); !slices.Equal(got, declared) {
				t.Errorf("%s.sql: DESCRIBE %s gives columns %v; its \"-- Units: %s:\" lines name %v", f.Name, call, got, macro, declared)
			}
		}
	}
}

func describe(t *testing.T, db *store.DB, call string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT column_name FROM (DESCRIBE SELECT * FROM ` + call + `)`)
	if err != nil {
		t.Fatalf("DESCRIBE %s: %v", call, err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols
}
