package engine

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rewind-dev/rewind/internal/duckarrow"
	"github.com/rewind-dev/rewind/store"
)

// Load creates the temporary table name (columns: DuckDB's column
// definitions, e.g. "run VARCHAR, n BIGINT") in db and inserts t into it,
// column by column in order and cast to the declared types, so the
// finishing SQL sees the types it was written for whatever the engine's
// Arrow types are (Spark's DECIMAL, its timestamps). A nil t leaves the
// table empty. db is an in-memory database (store.Memory): one connection.
func Load(ctx context.Context, db *store.DB, name, columns string, t arrow.Table) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE "+name+" ("+columns+")"); err != nil {
		return fmt.Errorf("load %s: %w", name, err)
	}
	if t == nil || t.NumRows() == 0 {
		return nil
	}
	ar, err := duckarrow.Of(conn)
	if err != nil {
		return err
	}
	view := "_rewind_engine_" + name
	rr := array.NewTableReader(t, 0)
	defer rr.Release()
	release, err := ar.RegisterView(rr, view)
	if err != nil {
		return fmt.Errorf("load %s: register arrow view: %w", name, err)
	}
	_, err = conn.ExecContext(ctx, "INSERT INTO "+name+" SELECT * FROM "+view)
	// An Arrow view left behind crashes a later reader (DUCKDB-NOTES): drop
	// it before its stream is released.
	if _, dropErr := conn.ExecContext(context.WithoutCancel(ctx), "DROP VIEW IF EXISTS "+view); dropErr != nil && err == nil {
		err = dropErr
	}
	release()
	if err != nil {
		return fmt.Errorf("load %s: %w", name, err)
	}
	return nil
}
