package analyze

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/queries"
	"github.com/rewind-dev/rewind/store"
)

// A file written by an older rewind lacks what schema.sql added since (the
// run_gaps table; run_pos, events.ts and the files columns). Opened
// read-only, which cannot add them, it gets stand-ins (an empty TEMP
// table, TEMP views with the columns NULL), and the analyses answer row
// for row as on the current file: count windows sort without run_pos,
// omission infers without stored gaps.
func TestOlderFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	vegeta := filepath.Join(dir, "v.json")
	if err := os.WriteFile(vegeta, []byte(vegetaLines("v", []int{0, 1, 2, 3}, []int{0, 100, 200, 450})), 0o644); err != nil {
		t.Fatal(err)
	}
	current := filepath.Join(dir, "current.duckdb")
	db, err := store.Open(ctx, current, store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(ctx, db, ingest.Options{Params: map[string]string{"planned": "tag_hash(20260731, req) < 0.05"}},
		[]string{"../fixtures/chaos/gunluk.json", vegeta}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := os.ReadFile(current)
	if err != nil {
		t.Fatal(err)
	}
	older := filepath.Join(dir, "older.duckdb")
	if err := os.WriteFile(older, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	// Take out, with a plain DuckDB connection, what the schema added.
	plain, err := sql.Open("duckdb", older)
	if err != nil {
		t.Fatal(err)
	}
	drops := []string{"DROP TABLE run_gaps"}
	for _, c := range queries.AddedColumns() {
		drops = append(drops, "ALTER TABLE "+c.Table+" DROP COLUMN "+c.Name)
	}
	for _, q := range drops {
		if _, err := plain.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	plain.Close()

	answers := func(path string) []string {
		t.Helper()
		db := readOnly(t, path, store.Options{})
		var out []string
		add := func(name string, rs ...*Result) {
			for _, r := range rs {
				for _, row := range strRows(t, r) {
					out = append(out, name+": "+row)
				}
			}
		}
		f, err := Falsification(db, FalsificationOptions{Experiment: "gunluk"})
		if err != nil {
			t.Fatal(err)
		}
		add("falsification", f)
		s, err := StopDamage(db, StopDamageOptions{Experiment: "gunluk"})
		if err != nil {
			t.Fatal(err)
		}
		add("stop-damage", s)
		b, err := BlastRadius(db, BlastRadiusOptions{Experiment: "gunluk"})
		if err != nil {
			t.Fatal(err)
		}
		add("blast-radius", b)
		m, w, err := Omission(db, OmissionOptions{Experiment: "v"})
		if err != nil {
			t.Fatal(err)
		}
		add("omission", m, w)
		var cols, rows int
		if err := db.QueryRow(`SELECT count(run_pos), (SELECT count(*) FROM run_gaps) FROM requests`).Scan(&cols, &rows); err != nil {
			t.Fatal(err)
		}
		return append(out, fmt.Sprintf("run_pos %d, run_gaps %d", cols, rows))
	}
	want, got := answers(current), answers(older)
	if len(want) < 10 || want[len(want)-1] != "run_pos 804, run_gaps 1" {
		t.Fatalf("the current file answers %d rows, ending %q", len(want), want[len(want)-1])
	}
	want[len(want)-1] = "run_pos 0, run_gaps 0" // the older file has neither
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("older file, read-only (-want, the current file +got):\n%s", d)
	}
}
