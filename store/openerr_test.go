package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/rewind-dev/rewind/queries"
)

// A DuckDB file whose tables are not rewind's fails to open with what is
// wrong, not the driver's "could not connect" nor the library file that
// failed to install.
func TestOpenForeignTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "foreign.duckdb")
	raw, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(queries.Schema); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`DROP TABLE requests; CREATE TABLE requests (experiment VARCHAR, run VARCHAR, x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	for _, mode := range []Mode{Read, Write} {
		db, err := Open(context.Background(), path, Options{Mode: mode})
		t.Logf("%v", err)
		if err == nil {
			db.Close()
			t.Fatal("opened")
		}
		for _, leak := range []string{"database/sql/driver", "could not connect", "queries/", ".sql:"} {
			if strings.Contains(err.Error(), leak) {
				t.Errorf("%q in %v", leak, err)
			}
		}
	}
}
