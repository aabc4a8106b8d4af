package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestLibraryOnDemand: a connection installs a library file's TEMP macros
// before the first statement that names one of them, and not before, and
// those shadow a macro stored in the file (as by an older rewind) from the
// first call on, after a rolled-back transaction too.
func TestLibraryOnDemand(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "rewind.duckdb")
	w, err := Open(ctx, path, Options{Mode: Write})
	if err != nil {
		t.Fatal(err)
	}
	// what an older rewind's tag_hash would be: stored, not this binary's
	if _, err := w.ExecContext(ctx, `CREATE OR REPLACE MACRO tag_hash(seed, i) AS -1.0`); err != nil {
		t.Fatal(err)
	}
	w.Close()

	db, err := Open(ctx, path, Options{Mode: Read})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	temp := func() int64 {
		t.Helper()
		var n int64
		// the name built in SQL: this statement names no macro
		q := `SELECT count(*) FROM duckdb_functions() WHERE database_name = 'temp' AND function_name = 'tag_' || 'hash'`
		if err := conn.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	hash := func(q string, c interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) float64 {
		t.Helper()
		var h float64
		if err := c.QueryRowContext(ctx, q).Scan(&h); err != nil {
			t.Fatal(err)
		}
		return h
	}
	if n := temp(); n != 0 {
		t.Fatalf("%d TEMP tag_hash macros before any statement named it", n)
	}
	h := hash(`SELECT tag_hash(7, 3)`, conn)
	if h < 0 || h >= 1 {
		t.Fatalf("tag_hash(7, 3) = %v: the stored macro, not the library's", h)
	}
	if n := temp(); n != 1 {
		t.Fatalf("%d TEMP tag_hash macros after a call", n)
	}
	if got := hash(`SELECT TAG_HASH(7, 3)`, conn); got != h {
		t.Fatalf("TAG_HASH(7, 3) = %v, tag_hash(7, 3) = %v", got, h)
	}

	conn2, err := db.Conn(ctx) // a second connection installs its own
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	tx, err := conn2.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := hash(`SELECT tag_hash(7, 3)`, tx); got != h {
		t.Fatalf("in a transaction, tag_hash(7, 3) = %v, want %v", got, h)
	}
	if err := tx.Rollback(); err != nil { // takes the TEMP macros made in it along
		t.Fatal(err)
	}
	if got := hash(`SELECT tag_hash(7, 3)`, conn2); got != h {
		t.Fatalf("after a rollback, tag_hash(7, 3) = %v, want %v", got, h)
	}
	if _, err := conn2.ExecContext(ctx, `BEGIN`); err != nil {
		t.Fatal(err)
	}
	hash(`SELECT tag_hash(7, 3)`, conn2)
	if _, err := conn2.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if got := hash(`SELECT tag_hash(7, 3)`, conn2); got != h {
		t.Fatalf("after a ROLLBACK statement, tag_hash(7, 3) = %v, want %v", got, h)
	}
}

// Only a statement that is a ROLLBACK (or ABORT) forgets the installed
// files: the words inside a statement, as thresholds' specs field "abort",
// leave them (and so the TEMP macros an engine put in their place).
func TestRolledBack(t *testing.T) {
	for q, want := range map[string]bool{
		`ROLLBACK`:           true,
		`  abort `:           true,
		`SELECT 1; rollback`: true,
		`SELECT * FROM thresholds('e', [{'id': 1, 'abort': true}])`: false,
		`SELECT 'ROLLBACK'`:                   false,
		`CREATE TEMP MACRO rollback_x() AS 1`: false,
		``:                                    false,
	} {
		if got := rolledBack(q); got != want {
			t.Errorf("rolledBack(%q) = %v, want %v", q, got, want)
		}
	}
}
