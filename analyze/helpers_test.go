package analyze

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/store"
)

// ingestedDB opens a fresh database in a temp dir and ingests paths into it.
func ingestedDB(t *testing.T, paths ...string) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "rewind.duckdb"), store.Options{Mode: store.Write})
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
func logsDB(t *testing.T, logs ...string) *store.DB {
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

// chaosFile ingests the chaos fixture into a new database file, closes it
// and returns its path; params are stored with the experiment.
func chaosFile(t *testing.T, params map[string]string) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "rewind.duckdb")
	db, err := store.Open(ctx, path, store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := ingest.Files(ctx, db, ingest.Options{Params: params}, []string{"../fixtures/chaos/gunluk.json"}); err != nil {
		t.Fatal(err)
	}
	return path
}

// readOnly opens path as rewind sql, notebook, analyze and report do.
func readOnly(t *testing.T, path string, o store.Options) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}
