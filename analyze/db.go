// Package analyze runs rewind's SQL library against a database and shapes
// the results: one function per analysis, each returning a Result whose
// columns are the SQL macro's columns. It never parses a log; ingest does.
package analyze

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/queries"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// DefaultDB is the database file used when none is named.
const DefaultDB = "rewind.duckdb"

// Open opens a rewind database. Writable opens create the file when needed,
// its tables, and the SQL library's macros (so any DuckDB client that opens
// the file has them). Read-only opens need an existing file.
func Open(ctx context.Context, path string, writable bool) (*sql.DB, error) {
	if path == "" {
		path = DefaultDB
	}
	dsn := path
	if !writable {
		if _, err := os.Stat(path); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("database %s does not exist: ingest a log first", path)
			}
			return nil, err
		}
		dsn += "?access_mode=READ_ONLY"
	}
	// Every connection gets the library as TEMP macros, which shadow the ones
	// stored in the file: the binary that runs decides what an analysis
	// computes, even on a read-only file written by an older rewind.
	connector, err := duckdb.NewConnector(dsn, func(ex driver.ExecerContext) error {
		if writable {
			if _, err := ex.ExecContext(ctx, ingest.DDL, nil); err != nil {
				return fmt.Errorf("create schema: %w", err)
			}
		}
		return queries.Install(ctx, func(ctx context.Context, q string) error {
			_, err := ex.ExecContext(ctx, queries.Temp(q), nil)
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db := sql.OpenDB(connector)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if writable {
		if err := Prepare(ctx, db); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

// Prepare creates rewind's tables and (re)installs the SQL library.
func Prepare(ctx context.Context, db *sql.DB) error {
	if err := ingest.EnsureSchema(ctx, db); err != nil {
		return err
	}
	return queries.Install(ctx, func(ctx context.Context, q string) error {
		_, err := db.ExecContext(ctx, q)
		return err
	})
}
