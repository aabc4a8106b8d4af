// Package analyze runs rewind's SQL library against a database and shapes
// the results: one function per analysis, each returning a Result whose
// columns are the SQL macro's columns. It never parses a log; ingest does.
// It also owns how the database is opened: read-only opens are sandboxed
// (sandbox.go), every open has a memory limit and a spill directory, and a
// file locked by another process is reported as such (lock.go).
package analyze

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/queries"
)

// DefaultDB is the database file used when none is named.
const DefaultDB = "rewind.duckdb"

// ErrNoDatabase means a read-only open found no file.
var ErrNoDatabase = errors.New("ingest a log first")

// OpenOptions steer OpenWith. The zero value is a read-only, sandboxed open
// with the default memory limit and spill directory.
type OpenOptions struct {
	// Writable opens create the file when needed, its tables and the SQL
	// library's stored macros, and are not sandboxed.
	Writable bool
	// MemoryLimit is a DuckDB size ("4GB", "512MiB"); "" is
	// DefaultMemoryLimit().
	MemoryLimit string
	// TempDir is where DuckDB spills what does not fit in MemoryLimit; "" is
	// DuckDB's <db>.tmp for writable opens and a directory of this process's
	// own for read-only ones (DefaultTempDir).
	TempDir string
	// Wait retries an open that another process's lock refuses, for this long.
	Wait time.Duration
}

// Open opens a rewind database with the default options; see OpenWith.
func Open(ctx context.Context, path string, writable bool) (*sql.DB, error) {
	return OpenWith(ctx, path, OpenOptions{Writable: writable})
}

// OpenWith opens a rewind database. Writable opens create the file when
// needed, its tables, and the SQL library's macros (so any DuckDB client that
// opens the file has them). Read-only opens need an existing file and can
// neither write nor reach any other file (see sandbox.go). Within one
// process, opens of the same file share one DuckDB instance (the Go driver's
// instance cache): the first open's settings hold until all are closed.
func OpenWith(ctx context.Context, path string, o OpenOptions) (*sql.DB, error) {
	if path == "" {
		path = DefaultDB
	}
	if err := checkPath(path); err != nil {
		return nil, err
	}
	if !o.Writable {
		if _, err := os.Stat(path); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("database %s does not exist: %w", path, ErrNoDatabase)
			}
			return nil, err
		}
	}
	settings, err := o.settings(path)
	if err != nil {
		return nil, err
	}
	dsn := path
	if !o.Writable {
		dsn += "?access_mode=READ_ONLY" // set when the file is opened; no SET can change it
	}
	connector, err := connect(ctx, path, dsn, o.Wait, connInit(ctx, o.Writable, settings))
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if o.Writable {
		if err := Prepare(ctx, db); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

// checkPath refuses paths DuckDB's Go driver would misread: it parses the
// name as a URL and takes what follows '?' as options.
func checkPath(path string) error {
	if strings.Contains(path, "?") {
		return fmt.Errorf("database %s: a path with '?' cannot be opened: rename the file", path)
	}
	if _, err := url.Parse(path); err != nil {
		return fmt.Errorf("database %s: DuckDB's Go driver cannot open this name (a %% in it must be followed by two hex digits): rename the file", path)
	}
	return nil
}

// connInit returns the connector's per-connection initialiser. The settings
// are global to the database instance, so the first connection applies them
// (ending with the sandbox's lock) and the others find them locked. Every
// connection gets the library as TEMP macros, which shadow the ones stored in
// the file: the binary that runs decides what an analysis computes, even on a
// read-only file written by an older rewind. The macros come after the
// sandbox: creating a macro needs no file access, and nothing runs unsandboxed.
func connInit(ctx context.Context, writable bool, settings []string) func(driver.ExecerContext) error {
	var mu sync.Mutex // connections may be opened concurrently; the SETs must not interleave
	return func(ex driver.ExecerContext) error {
		mu.Lock()
		defer mu.Unlock()
		if err := configure(ctx, ex, settings); err != nil {
			return err
		}
		if writable {
			if _, err := ex.ExecContext(ctx, ingest.DDL, nil); err != nil {
				return fmt.Errorf("create schema: %w", err)
			}
		}
		return queries.Install(ctx, func(ctx context.Context, q string) error {
			_, err := ex.ExecContext(ctx, queries.Temp(q), nil)
			return err
		})
	}
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
