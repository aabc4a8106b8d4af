package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/store"
)

// byCase is a real log and the fields to split it by.
type byCase struct {
	file string
	by   []string
}

var byCases = []byCase{
	{"../fixtures/k6/chaos.json", []string{"status_class"}},
	{"../fixtures/k6/chaos.json", []string{"method", "name", "status"}},
	{"../fixtures/chaos/gunluk.json", []string{"tagged", "outcome"}},
	{"../fixtures/retry/tiny.ndjson", []string{"outcome"}},
	{"../fixtures/storm/tiny.ndjson", []string{"outcome"}},
	{"../fixtures/storm/tiny.ndjson", []string{"attempt"}},
	{"../ingest/testdata/real/vegeta/csv-ratelimiter/input.csv", []string{"status_class", "method"}},
	{"../ingest/testdata/real/jmeter/csv-webtours/input.jtl", []string{"URL"}},
	{"../ingest/testdata/real/har/chrome/input.har", []string{"url"}},
}

// byAnalyses are macro calls with %s for the macro's name and its first
// arguments (the experiment, and the group for a _by macro).
var byAnalyses = []struct{ name, call string }{
	{"peaks", "%s, [1, 7, 100, 1000]::BIGINT[], sliding := true)"},
	{"peaks", "%s, [250]::BIGINT[])"},
	{"changes_series", "%s, 100)"},
	{"changes_series", "%s, 7)"},
	{"retries", "%s, 0, 1e18)"},
	{"retries", "%s, 1000, 3000)"},
	{"amplification", "%s)"},
	{"amplification", "%s, tick_ms := 7, fault_from_ms := 100, fault_to_ms := 900, normal_rate := 2)"},
	{"burn_rate", "%s, (outcome = 'ok'), slo := 0.9, rules := " + byBurnRules + ", partial := true)"},
	{"burn_rate", "%s, (latency_ms < 50), slo := 0.99, rules := " + byBurnRules + ", step_ms := 30)"},
	{"burn_rate", "%s, (status < 400), rules := " + byBurnRules + ")"},
	{"falsification", "%s, size_n := 7, control_role := 'control', " + bySides + ")"},
	{"falsification", "%s, size_ms := 250, metric := 'error_rate', margins := [0, 0.1], " + bySplit + ")"},
	{"falsification", "%s, size_n := 3)"},
	{"hypothesis_sweep", "%s, [{'f': 1200000::HUGEINT, 'a': 0::HUGEINT}, {'f': 0::HUGEINT, 'a': 200000000000::HUGEINT}], size_n := 4, metric := 'p95', " + bySplit + ")"},
	{"stop_damage", "%s, size_n := 5, ks := [1, 2, 3], " + bySides + ")"},
	{"stop_damage", "%s, size_ms := 100, margin := 0.05, " + bySplit + ")"},
	{"stop_damage", "%s, size_n := 2, metric := 'max', f := 0, a := 100000000000, " + bySides + ")"},
}

// The sides of a hypothesis for logs without roles: the table's first run
// against its last, or the first run before and after its median send
// (a subquery over the whole table: the same for a group's own log).
const (
	bySides = "control_run := (SELECT min(run) FROM requests), treatment_run := (SELECT max(run) FROM requests)"
	bySplit = "control_run := (SELECT min(run) FROM requests), treatment_run := (SELECT min(run) FROM requests), " +
		"split_ms := (SELECT median(t_ms) FROM requests WHERE run = (SELECT min(run) FROM requests))"
)

// byBurnRules fire within the seconds the real logs last.
// (Their shortest window sets the bucket, a 64th of it: 250 ms keeps a
// 30 s log to some 8000 buckets.)
const byBurnRules = `[{name: 'a', short_ms: 250, long_ms: 1000, factor: 1}, {name: 'b', short_ms: 500, long_ms: 3000, factor: 2},
	{name: 'c', short_ms: 1000, long_ms: 20000, factor: 0.5}]`

// A group's rows of NAME_by are NAME over the log filtered to the group,
// for every group of every case: the experiment's rows of one group are
// copied to an experiment of their own (with its runs and params), and the
// two results compared row for row (both sorted: the filter is a join,
// which keeps no order); the groups' rows together are all the rows
// NAME_by gives.
func TestByEqualsFiltered(t *testing.T) {
	for _, c := range byCases {
		t.Run(strings.TrimPrefix(c.file, "../")+"/"+strings.Join(c.by, ","), func(t *testing.T) {
			db, e, g, groups := splitFile(t, c.file, c.by)
			for _, a := range byAnalyses {
				total := 0
				for i := 1; i <= groups; i++ {
					sub := fmt.Sprintf("by-%d", i)
					whole := mustSQL(t, db, `SELECT * FROM `+fmt.Sprintf(a.call, a.name+"('"+sub+"'")+` ORDER BY ALL`)
					grouped := mustSQL(t, db, fmt.Sprintf(`SELECT * EXCLUDE (grp) FROM `+a.call+
						` WHERE grp IS NOT DISTINCT FROM (SELECT k FROM by_groups WHERE i = %d) ORDER BY ALL`,
						a.name+"_by('"+sqlEsc(e.Name)+"', "+g.key, i))
					if diff := cmp.Diff(whole.Rows, grouped.Rows); diff != "" {
						t.Fatalf("%s group %d (-filtered log +grouped):\n%s", fmt.Sprintf(a.call, a.name+"_by(…"), i, diff)
					}
					total += len(whole.Rows)
				}
				all := mustSQL(t, db, `SELECT * FROM `+fmt.Sprintf(a.call, a.name+"_by('"+sqlEsc(e.Name)+"', "+g.key))
				if len(all.Rows) != total {
					t.Fatalf("%s: %d grouped rows, %d in the groups' own logs", a.name, len(all.Rows), total)
				}
			}
		})
	}
}

// splitFile ingests file and splits its experiment into one per group of
// the by fields (splitGroups), returning the database, the experiment, its
// grouping and how many groups there are.
func splitFile(t *testing.T, file string, by []string) (*store.DB, store.Experiment, grouping, int) {
	t.Helper()
	db := ingestedDB(t, file)
	e, err := store.FindExperiment(db, "")
	if err != nil {
		t.Fatal(err)
	}
	g, err := groupBy(db, e.Name, by)
	if err != nil {
		t.Fatal(err)
	}
	return db, e, g, splitGroups(t, db, e.Name, g.key)
}

// splitGroups copies each group's rows to an experiment by-N (N from 1, in
// the order of the group's value, kept in by_groups) and returns how many
// groups there are.
func splitGroups(t *testing.T, db *store.DB, exp, key string) int {
	t.Helper()
	stmts := []string{
		`CREATE TABLE by_groups AS SELECT row_number() OVER (ORDER BY k) AS i, k
		 FROM (SELECT DISTINCT ` + key + ` AS k FROM requests WHERE experiment = $1)`,
		`INSERT INTO requests SELECT r.* REPLACE ('by-' || g.i AS experiment)
		 FROM requests r JOIN by_groups g ON g.k IS NOT DISTINCT FROM ` + key + ` WHERE r.experiment = $1`,
		`INSERT INTO runs SELECT r.* REPLACE ('by-' || g.i AS experiment) FROM runs r, by_groups g WHERE r.experiment = $1`,
		`INSERT INTO experiments SELECT e.* REPLACE ('by-' || g.i AS experiment) FROM experiments e, by_groups g WHERE e.experiment = $1`,
	}
	for _, s := range stmts {
		if _, err := db.Exec(s, exp); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM by_groups`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Fatalf("%d groups: the case splits nothing", n)
	}
	return n
}

func mustSQL(t *testing.T, db *store.DB, q string) *Result {
	t.Helper()
	r, err := Query(db, "by", nil, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return r
}

func sqlEsc(s string) string { return strings.ReplaceAll(s, "'", "''") }

// _side_windows_by numbers a side's rows per hash of the group, by seq
// alone when the side has one run, and falls back to numbering per group
// only when two groups share a hash, which no test log has: each numbering
// must give the same windows as the one per group, on every side of every
// case (each run alone, and each role's runs together).
func TestByNumberingsAgree(t *testing.T) {
	for _, c := range byCases {
		t.Run(strings.TrimPrefix(c.file, "../")+"/"+strings.Join(c.by, ","), func(t *testing.T) {
			db := ingestedDB(t, c.file)
			e, err := store.FindExperiment(db, "")
			if err != nil {
				t.Fatal(err)
			}
			g, err := groupBy(db, e.Name, c.by)
			if err != nil {
				t.Fatal(err)
			}
			exp := "'" + sqlEsc(e.Name) + "'"
			var sides [][2]string // run_name and role_name of each side, as SQL
			for _, r := range mustSQL(t, db, `SELECT DISTINCT run FROM requests WHERE experiment = `+exp+` ORDER BY ALL`).Rows {
				sides = append(sides, [2]string{"'" + sqlEsc(fmt.Sprint(r[0])) + "'", "NULL"})
			}
			for _, r := range mustSQL(t, db, `SELECT DISTINCT role FROM requests WHERE experiment = `+exp+` ORDER BY ALL`).Rows {
				sides = append(sides, [2]string{"NULL", "'" + sqlEsc(fmt.Sprint(r[0])) + "'"})
			}
			for _, s := range sides {
				side := func(numbering string) *Result {
					return mustSQL(t, db, fmt.Sprintf(`SELECT * FROM _side_aggregates_by(%s, %s, %s, %s, 3, NULL, NULL, NULL, 'ok_share', '%s') ORDER BY ALL`,
						exp, g.key, s[0], s[1], numbering))
				}
				want := side("group")
				if len(want.Rows) == 0 {
					t.Fatalf("side %v: no windows", s)
				}
				numberings := []string{"run"}
				if s[1] == "NULL" {
					numberings = append(numberings, "seq")
				}
				for _, n := range numberings {
					if diff := cmp.Diff(want.Rows, side(n).Rows); diff != "" {
						t.Fatalf("side %v, numbering %s (-by group +%s):\n%s", s, n, n, diff)
					}
				}
				got := mustSQL(t, db, fmt.Sprintf(`SELECT gk, window_no, first_t_ms, last_t_ms, requests, ok, damage, tagged
					FROM _side_windows_by(%s, %s, %s, %s, 3, NULL, NULL, NULL, 'ok_share') ORDER BY ALL`, exp, g.key, s[0], s[1]))
				w := mustSQL(t, db, fmt.Sprintf(`SELECT gk, window_no, first_t_ms, last_t_ms, requests, ok, damage, tagged
					FROM _side_aggregates_by(%s, %s, %s, %s, 3, NULL, NULL, NULL, 'ok_share', 'group') ORDER BY ALL`, exp, g.key, s[0], s[1]))
				if diff := cmp.Diff(w.Rows, got.Rows); diff != "" {
					t.Fatalf("side %v: _side_windows_by (-by group +chosen):\n%s", s, diff)
				}
			}
		})
	}
}
