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

// TestInvalidDataset breaks one part of an exported dataset at a time:
// Open and Load refuse it naming the part and the column, and Load
// leaves the database empty.
func TestInvalidDataset(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.duckdb")
	ingestInto(t, src, []ingestGroup{{ingest.Options{}, []string{repo("fixtures/chaos/gunluk.json")}}})
	cases := []struct {
		name, want string
		breakPart  func(t *testing.T, db *store.DB, part string)
	}{
		{"missing-column", `column "latency_ms": missing (want DOUBLE)`, func(t *testing.T, db *store.DB, part string) {
			rewrite(t, db, part, "SELECT * EXCLUDE (latency_ms)")
		}},
		{"wrong-type", `column "latency_ms": want DOUBLE, got VARCHAR`, func(t *testing.T, db *store.DB, part string) {
			rewrite(t, db, part, "SELECT * REPLACE (latency_ms::VARCHAR AS latency_ms)")
		}},
		{"partition-in-part", `column "run": is the folder's partition`, func(t *testing.T, db *store.DB, part string) {
			rewrite(t, db, part, "SELECT *, 'x' AS run")
		}},
		{"unreadable", `does not read as Parquet`, func(t *testing.T, db *store.DB, part string) {
			if err := os.Truncate(part, 100); err != nil {
				t.Fatal(err)
			}
		}},
	}
	scratch, err := store.Open(ctx, filepath.Join(dir, "scratch.duckdb"), store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	defer scratch.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := filepath.Join(dir, c.name)
			exportDB(t, src, ds, "")
			parts, _ := filepath.Glob(filepath.Join(ds, "requests", "*", "run=experiment", "*.parquet"))
			if len(parts) != 1 {
				t.Fatalf("parts %v", parts)
			}
			c.breakPart(t, scratch, parts[0])
			name := filepath.Join(c.name, "requests", "experiment=gunluk", "run=experiment", filepath.Base(parts[0]))
			if db, err := Open(ctx, ds, store.Options{}); err == nil {
				db.Close()
				t.Errorf("Open: no error")
			} else if !strings.Contains(err.Error(), name+": ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Open: %v\nwant %s: ...%s", err, name, c.want)
			}
			dst, err := store.Open(ctx, filepath.Join(dir, c.name+".duckdb"), store.Options{Mode: store.Write})
			if err != nil {
				t.Fatal(err)
			}
			defer dst.Close()
			if _, err := Load(ctx, dst, ds); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Load: %v, want %s", err, c.want)
			}
			var n int64
			dst.QueryRow("SELECT (SELECT count(*) FROM requests) + (SELECT count(*) FROM files)").Scan(&n)
			if n != 0 {
				t.Errorf("a refused load left %d rows", n)
			}
		})
	}
}

// rewrite replaces a part with sel (a SELECT list and what follows it) of
// its own rows.
func rewrite(t *testing.T, db *store.DB, part, sel string) {
	t.Helper()
	tmp := part + ".new.parquet"
	if _, err := db.Exec("COPY (" + sel + " FROM read_parquet(" + quote(part) + ", hive_partitioning = false)) TO " + quote(tmp) + " (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, part); err != nil {
		t.Fatal(err)
	}
}
