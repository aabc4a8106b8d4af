package analyze

import "testing"

// The small tables (experiments, runs, files) come over in one reduce step
// (copySmallTables: one UNION ALL branch per table) and are, row for row and
// type for type, the database's: stored parameters (JSON), roles, a run
// named with a quote and a backslash, and files with and without a
// compression, a resolution and a time origin.
func TestSmallTablesOnSpark(t *testing.T) {
	sparkURL(t)
	t.Parallel()
	db := ingestedDB(t, "../fixtures/chaos/gunluk.json", "../fixtures/k6/chaos.json", "../fixtures/hypotheses/checkout.ndjson", "../fixtures/peaks/sekil1.csv")
	if _, err := db.Exec(`UPDATE runs SET run = 'o''b\rien' WHERE run = (SELECT min(run) FROM runs)`); err != nil {
		t.Fatal(err)
	}
	r := onSpark(t, sparkDataset(t, db))
	for _, q := range []string{
		`SELECT experiment, params::VARCHAR FROM experiments`,
		`SELECT experiment, run, role, params::VARCHAR FROM runs`,
		`SELECT * FROM files`,
		`SELECT typeof(COLUMNS(*)) FROM files LIMIT 1`,
		`SELECT typeof(COLUMNS(*)) FROM runs LIMIT 1`,
		`SELECT typeof(COLUMNS(*)) FROM experiments LIMIT 1`,
	} {
		if n := len(rowStrings(t, db, q)); n == 0 {
			t.Fatalf("%s: no rows locally", q)
		}
		sameStep(t, q, db, q, r.Querier(), q)
	}
}
