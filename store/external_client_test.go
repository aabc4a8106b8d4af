package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2" // registers "duckdb", as any Go client would
	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/store"
)

// TestPlainClientSeesStoredMacros backs the README's claim that any DuckDB
// client can run the analyses on a rewind file: after rewind writes the file,
// a plain connection (no rewind code, no TEMP macros) calls the macros stored
// in it, including tag_hash, and gets the seed's chaos numbers.
func TestPlainClientSeesStoredMacros(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rewind.duckdb")
	ingestChaos(t, path)

	db, err := sql.Open("duckdb", path+"?access_mode=READ_ONLY")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var temp int64
	if err := db.QueryRow(`SELECT count(*) FROM duckdb_functions() WHERE database_name = 'temp' AND function_name = 'falsification'`).Scan(&temp); err != nil {
		t.Fatal(err)
	}
	if temp != 0 {
		t.Fatalf("the plain connection has %d TEMP falsification macros; the test would not prove the stored ones work", temp)
	}
	type row struct{ A, B, C, D float64 }
	queries := []struct {
		sql  string
		want []row
	}{
		{`SELECT count(*), 0, 0, 0 FROM experiment_window('gunluk', 200) WHERE tag_hash(20260731, req) < 0.05`,
			[]row{{11, 0, 0, 0}}},
		{`SELECT planned, measured, multiplier, damaged FROM blast_radius('gunluk', 200, 11)`,
			[]row{{11, 44, 4, 52}}},
		{`SELECT margin, control_falsified, experiment_falsified, first_falsified_window FROM falsification('gunluk', size_n := 40)`,
			[]row{{0, 4, 7, 2}, {0.05, 4, 7, 2}, {0.1, 0, 4, 6}, {0.2, 0, 2, 8}}},
		{`SELECT k, coalesce(stop_window, -1), damage_until_stop, extra_over_k1 FROM stop_damage('gunluk', size_n := 40)`,
			[]row{{1, 6, 8, 0}, {2, 9, 28, 20}, {3, 10, 44, 36}, {4, -1, 44, 36}}},
		{`SELECT window_no, requests, ok, damage FROM windows('gunluk', 'experiment', size_n := 40) WHERE window_no IN (6, 10)`,
			[]row{{6, 40, 32, 8}, {10, 40, 24, 16}}},
	}
	for _, q := range queries {
		rows, err := db.Query(q.sql)
		if err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
		var got []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.A, &r.B, &r.C, &r.D); err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		rows.Close()
		if diff := cmp.Diff(q.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", q.sql, diff)
		}
	}
}

// ingestChaos writes the chaos fixture into a new rewind file, the way
// `rewind ingest` does.
func ingestChaos(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := ingest.Files(ctx, db, ingest.Options{}, []string{"../fixtures/chaos/gunluk.json"}); err != nil {
		t.Fatal(err)
	}
}
