package dataset

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/store"
)

// ingestInto ingests each group of files, as one ingest each, into a new
// database file.
func ingestInto(t *testing.T, path string, groups []ingestGroup) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, g := range groups {
		if _, err := ingest.Files(ctx, db, g.opts, g.files); err != nil {
			t.Fatalf("ingest %v: %v", g.files, err)
		}
	}
}

type ingestGroup struct {
	opts  ingest.Options
	files []string
}

func repo(p string) string { return filepath.Join("..", p) }

// fixtureGroups are the seed fixtures, a real access log, stored
// parameters and a run whose name needs encoding in a path.
func fixtureGroups(t *testing.T) []ingestGroup {
	odd := filepath.Join(t.TempDir(), "odd.ndjson")
	os.WriteFile(odd, []byte(`{"run":"a/b=c d%","req":1,"t_ms":1,"latency_ms":2.5,"outcome":"ok","ts":"2026-01-02T03:04:05.123456Z"}
{"run":"a/b=c d%","req":2,"t_ms":2,"latency_ms":3,"outcome":"error","attrs":{"k":"v"}}
{"run":"","req":3,"t_ms":3,"latency_ms":3,"outcome":"ok"}
`), 0o644)
	return []ingestGroup{
		{ingest.Options{Params: map[string]string{"window": "40"}}, []string{repo("fixtures/chaos/gunluk.json")}},
		{ingest.Options{}, []string{repo("fixtures/chaos/live-experiment.ndjson"), repo("fixtures/storm/tiny.ndjson"), repo("fixtures/retry/tiny.ndjson")}},
		{ingest.Options{Experiment: "k6", Roles: map[string]string{"baseline": "control", "chaos": "experiment"}},
			[]string{repo("fixtures/k6/baseline.json"), repo("fixtures/k6/chaos.json")}},
		{ingest.Options{}, []string{repo("fixtures/peaks/sekil1.csv"), repo("fixtures/hypotheses/checkout.ndjson")}},
		{ingest.Options{}, []string{repo("ingest/testdata/real/access/nginx-observiq/input.log")}},
		{ingest.Options{Experiment: "odd"}, []string{odd}},
	}
}

// TestRoundTrip exports a database and loads the dataset into a new one:
// every table equal, EXCEPT ALL empty both ways.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.duckdb")
	ingestInto(t, src, fixtureGroups(t))
	ds := filepath.Join(dir, "ds")
	exportDB(t, src, ds, "")
	if _, err := os.Stat(filepath.Join(ds, "requests", "experiment=odd", "run=a%2Fb%3Dc%20d%25")); err != nil {
		t.Errorf("the odd run's partition: %v", err)
	}
	dst := filepath.Join(dir, "dst.duckdb")
	db, err := store.Open(ctx, dst, store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	counts, err := Load(ctx, db, ds)
	if err != nil {
		t.Fatal(err)
	}
	if counts["requests"] == 0 || counts["files"] == 0 {
		t.Fatalf("loaded %v", counts)
	}
	compareTables(t, db, src, names())
	db.Close()
}

func exportDB(t *testing.T, src, ds, experiment string) *Summary {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, src, store.Options{Mode: store.Export})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sum, err := Export(ctx, db, ds, experiment)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// compareTables checks db's tables against the file other's, row for row.
func compareTables(t *testing.T, db *store.DB, other string, tabs []string) {
	t.Helper()
	compareTablesExcept(t, db, other, tabs, nil)
}

// compareTablesExcept is compareTables leaving some tables' columns out.
func compareTablesExcept(t *testing.T, db *store.DB, other string, tabs []string, except map[string]string) {
	t.Helper()
	if _, err := db.Exec("ATTACH " + quote(other) + " AS other (READ_ONLY)"); err != nil {
		t.Fatal(err)
	}
	defer db.Exec("DETACH other")
	for _, tab := range tabs {
		sel := "SELECT *"
		if except[tab] != "" {
			sel += " EXCLUDE (" + except[tab] + ")"
		}
		for _, q := range []string{
			"SELECT count(*) FROM (" + sel + " FROM " + tab + " EXCEPT ALL " + sel + " FROM other." + tab + ")",
			"SELECT count(*) FROM (" + sel + " FROM other." + tab + " EXCEPT ALL " + sel + " FROM " + tab + ")",
		} {
			var n int64
			if err := db.QueryRow(q).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("%s: %d rows differ (%s)", tab, n, q)
			}
		}
		var a, b int64
		db.QueryRow("SELECT count(*) FROM " + tab).Scan(&a)
		db.QueryRow("SELECT count(*) FROM other." + tab).Scan(&b)
		if a != b {
			t.Errorf("%s: %d rows, want %d", tab, a, b)
		}
	}
}
