package analyze

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A group's rows of Judge with By are Judge over the log filtered to the
// group (splitGroups), metrics and scores alike, for every group of real
// logs with both roles; a group the filtered log cannot judge (one side
// only) has no row and a note.
func TestJudgeByEqualsFiltered(t *testing.T) {
	cases := []struct {
		file string
		by   []string
		o    JudgeOptions
	}{
		{"../fixtures/hypotheses/checkout.ndjson", []string{"name"}, JudgeOptions{Step: 30 * time.Second}},
		{"../fixtures/hypotheses/checkout.ndjson", []string{"name"}, JudgeOptions{StepN: 10, Interval: 0}},
		{"../fixtures/hypotheses/checkout.ndjson", []string{"status_class"}, JudgeOptions{Step: 20 * time.Second,
			Interval: time.Minute, Warmup: 40 * time.Second, Lookback: 2 * time.Minute}},
		{"../fixtures/chaos/gunluk.json", []string{"outcome"}, JudgeOptions{StepN: 25}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%v/%d", c.file, c.by, len(c.o.Metrics)+int(c.o.StepN)), func(t *testing.T) {
			db, e, _, groups := splitFile(t, c.file, c.by)
			o := c.o
			o.Experiment, o.By = e.Name, c.by
			m, s, err := Judge(db, o)
			if err != nil {
				t.Fatal(err)
			}
			judged, skipped := 0, 0
			for i := 1; i <= groups; i++ {
				vals := mustSQL(t, db, fmt.Sprintf(`SELECT unnest(k) FROM by_groups WHERE i = %d`, i)).Rows[0]
				o.Experiment, o.By = fmt.Sprintf("by-%d", i), nil
				fm, fs, err := Judge(db, o)
				gm, gs := groupRows(m, vals), groupRows(s, vals)
				if err != nil {
					if len(gm)+len(gs) > 0 {
						t.Fatalf("group %v: the filtered log is not judged (%v), the grouped one is", vals, err)
					}
					skipped++
					continue
				}
				if diff := cmp.Diff(fm.Rows, gm); diff != "" {
					t.Fatalf("group %v metrics (-filtered log +grouped):\n%s", vals, diff)
				}
				if diff := cmp.Diff(fs.Rows, gs); diff != "" {
					t.Fatalf("group %v scores (-filtered log +grouped):\n%s", vals, diff)
				}
				judged++
			}
			if judged == 0 || len(m.Rows) == 0 {
				t.Fatalf("no group judged")
			}
			t.Logf("%d groups judged, %d not (notes: %q)", judged, skipped, s.Notes)
		})
	}
}

// groupRows are r's rows whose first len(vals) columns are vals, without
// them.
func groupRows(r *Result, vals []any) [][]any {
	var out [][]any
	for _, row := range r.Rows {
		if fmt.Sprint(row[:len(vals)]) == fmt.Sprint(vals) {
			out = append(out, row[len(vals):])
		}
	}
	return out
}

// --by over an experiment with no row of either side is the judge's
// missing-role error, as without --by (it indexed an empty group's
// values and panicked).
func TestJudgeByNoSides(t *testing.T) {
	db := logsDB(t, `{"experiment":"solo","run":"a","req":1,"t_ms":5,"latency_ms":3,"outcome":"ok"}`+"\n")
	_, _, err := Judge(db, JudgeOptions{Experiment: "solo", By: []string{"outcome"}})
	if err == nil || !strings.Contains(err.Error(), "has no requests with t_ms with role control") {
		t.Errorf("judge --by over no sides: %v", err)
	}
}
