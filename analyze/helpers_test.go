package analyze

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-dev/rewind/ingest"
)

// ingestedDB opens a fresh database in a temp dir and ingests paths into it.
func ingestedDB(t *testing.T, paths ...string) *sql.DB {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "rewind.duckdb"), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if len(paths) > 0 {
		if _, err := ingest.Files(ctx, db, ingest.Options{}, paths); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// logsDB writes each log to a file of its own and ingests them all.
func logsDB(t *testing.T, logs ...string) *sql.DB {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i, l := range logs {
		p := filepath.Join(dir, string(rune('a'+i))+".ndjson")
		if err := os.WriteFile(p, []byte(l), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return ingestedDB(t, paths...)
}
