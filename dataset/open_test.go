package dataset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/store"
)

// TestOpenSandbox: a dataset read in place lets queries read its folder
// and nothing else, even past rewind's own allow-list (these go straight
// to DuckDB), and no SET undoes it.
func TestOpenSandbox(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.duckdb")
	ingestInto(t, src, []ingestGroup{{ingest.Options{}, []string{repo("fixtures/chaos/gunluk.json")}}})
	ds := filepath.Join(dir, "ds")
	exportDB(t, src, ds, "")
	secret := filepath.Join(dir, "secret.csv")
	os.WriteFile(secret, []byte("a\n1\n"), 0o644)
	db, err := Open(ctx, ds, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow("SELECT count(*) FROM requests").Scan(&n); err != nil || n != 800 {
		t.Fatalf("requests: %d, %v", n, err)
	}
	for _, q := range []string{
		"SELECT * FROM read_csv(" + quote(secret) + ")",
		"SELECT * FROM read_text('/etc/passwd')",
		"COPY (SELECT 1) TO " + quote(filepath.Join(dir, "out.csv")),
		"SET allowed_directories = ['/']",
		"SET enable_external_access = true",
		"ATTACH " + quote(src) + " AS s",
	} {
		if _, err := db.Exec(q); err == nil {
			t.Errorf("%s: no error", q)
		} else if !store.Sandboxed(err) && !strings.Contains(err.Error(), "lock") && !strings.Contains(err.Error(), "configuration") {
			t.Errorf("%s: %v, want the sandbox's refusal", q, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.csv")); err == nil {
		t.Error("a COPY wrote outside the dataset")
	}
}
