package notebook

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rewind-dev/rewind/ingest"
	isandbox "github.com/rewind-dev/rewind/internal/sandbox"
	"github.com/rewind-dev/rewind/store"
)

// TestCellLoggingRefused: a cell that switches DuckDB's logging to a file
// (which used to abort the process) is refused under a read-only open.
func TestCellLoggingRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "rewind.duckdb")
	w, err := store.Open(ctx, path, store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(ctx, w, ingest.Options{}, []string{"../fixtures/chaos/gunluk.json"}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	crash := "CALL enable_logging(storage := 'file', storage_path := 'out/log'); SELECT 1"
	cell := "# n\n\n```sql\n" + crash + "\n```\n"
	if _, err := Run(ctx, db.DB, "nb.md", []byte(cell), Options{}); !isandbox.Refusal(err) {
		t.Errorf("notebook cell %s: got %v, want a refusal", crash, err)
	}
}
