// Package store owns rewind's DuckDB file: it is the only place that opens
// one (Open), applies the schema (queries/schema.sql) and the SQL library,
// sandboxes read-only opens (sandbox.go), reports a file locked by another
// process as such (lock.go), and removes a file it created when the caller
// discards it (DB.Discard). Queries run through a Querier bound to a context,
// by rows or by Arrow batches. Experiments and their stored parameters are
// read and written here too.
package store

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

	"github.com/apache/arrow-go/v18/arrow"
	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/rewind-dev/rewind/queries"
)

// DefaultDB is the database file used when none is named.
const DefaultDB = "rewind.duckdb"

// ErrNoDatabase means a read-only open found no file.
var ErrNoDatabase = errors.New("ingest a log first")

// Mode is how a database is opened.
type Mode int

const (
	// Read opens an existing file read-only and sandboxed: no query can
	// write, or reach any other file, URL or extension.
	Read Mode = iota
	// Write creates the file when needed, its tables and the SQL library's
	// stored macros (so any DuckDB client that opens the file has them).
	Write
	// Memory opens a database of this process's own, in memory, with the
	// schema and the library, sandboxed like Read. With Options.Views it
	// holds those views instead of the schema's tables (a dataset read in
	// place: the dataset package).
	Memory
	// Export opens an existing file read-only without the sandbox: the
	// queries may write files (the dataset package's COPY ... TO).
	Export
	// Scratch opens a database of this process's own, in memory, with the
	// schema and the library and no sandbox: a conversion's work space.
	Scratch
)

// Options steer Open. The zero value is a read-only, sandboxed open with the
// default memory limit and spill directory.
type Options struct {
	Mode Mode
	// MemoryLimit is a DuckDB size ("4GB", "512MiB"); "" is
	// DefaultMemoryLimit().
	MemoryLimit string
	// TempDir is where DuckDB spills what does not fit in MemoryLimit; "" is
	// DuckDB's <db>.tmp for writable opens and a directory of this process's
	// own for read-only ones (DefaultTempDir).
	TempDir string
	// Wait retries an open that another process's lock refuses, for this long.
	Wait time.Duration
	// Views, for Memory, are the statements that create the canonical
	// tables as views, in place of the schema; Allowed are the only
	// directories those views (and so any query) may read once the sandbox
	// is locked (DuckDB's allowed_directories). A non-nil, empty Views opens
	// a bare database: no tables, no library.
	Views   []string
	Allowed []string
}

// DB is an open rewind database.
type DB struct {
	*sql.DB
	path    string
	created bool // this open created the file
}

// Path is the database file ("" in memory).
func (db *DB) Path() string { return db.path }

// Discard closes db and, when this open created the file, removes it: a
// failed first ingest leaves no database behind, since nothing was in it.
func (db *DB) Discard() error {
	err := db.Close()
	if db.created {
		os.Remove(db.path)
		os.Remove(db.path + ".wal")
	}
	return err
}

// Open opens a rewind database. Within one process, opens of the same file
// share one DuckDB instance (the Go driver's instance cache): the first
// open's settings hold until all are closed.
func Open(ctx context.Context, path string, o Options) (*DB, error) {
	if o.Mode == Memory || o.Mode == Scratch {
		return openMemory(ctx, o)
	}
	if path == "" {
		path = DefaultDB
	}
	if err := checkPath(path); err != nil {
		return nil, err
	}
	sweepSpills(path)
	writable := o.Mode == Write
	if err := checkName(path); err != nil {
		return nil, err
	}
	if err := checkFile(path); err != nil {
		return nil, err
	}
	_, statErr := os.Stat(path)
	if !writable && statErr != nil {
		if errors.Is(statErr, os.ErrNotExist) {
			return nil, fmt.Errorf("database %s does not exist: %w", path, ErrNoDatabase)
		}
		return nil, statErr
	}
	settings, err := o.settings(path)
	if err != nil {
		return nil, err
	}
	options := []string{openConfig}
	if !writable {
		options = append(options, "access_mode=READ_ONLY") // set when the file is opened; no SET can change it
	}
	dsn := path + "?" + strings.Join(options, "&")
	connector, err := connect(ctx, path, dsn, o.Wait, connInit(ctx, writable, nil, settings))
	if err != nil {
		return nil, err
	}
	db := &DB{DB: sql.OpenDB(libConnector{connector}), path: path, created: writable && errors.Is(statErr, os.ErrNotExist)}
	if err := db.PingContext(ctx); err != nil {
		db.Discard()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if writable {
		if err := Prepare(ctx, db.DB); err != nil {
			db.Discard()
			return nil, err
		}
	}
	return db, nil
}

// openMemory opens an in-memory database with the schema and the library,
// then sandboxes it: one connection, so the settings and the TEMP macros
// hold for every query.
func openMemory(ctx context.Context, o Options) (*DB, error) {
	sandboxed := o.Mode == Memory
	o.Mode = Write // the schema goes in before the sandbox locks
	settings, err := o.settings("")
	if err != nil {
		return nil, err
	}
	if len(o.Allowed) > 0 {
		settings = append(settings, "SET allowed_directories = "+quoteList(o.Allowed))
	}
	connector, err := duckdb.NewConnector("?"+openConfig, func(ex driver.ExecerContext) error {
		if err := connInit(ctx, true, o.Views, settings)(ex); err != nil {
			return err
		}
		for _, s := range sandbox {
			if !sandboxed {
				break
			}
			if _, err := ex.ExecContext(ctx, s, nil); err != nil {
				return fmt.Errorf("configure the database (%s): %w", s, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var conns driver.Connector = connector // with views, the library is installed whole
	if o.Views == nil {
		conns = libConnector{connector}
	}
	db := &DB{DB: sql.OpenDB(conns)}
	if sandboxed {
		db.SetMaxOpenConns(1)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// openConfig is what every open sets in the configuration the database is
// created with, before DuckDB reads the file: no extension is installed or
// loaded on its own. Without it, a file of another format (SQLite) made
// DuckDB fetch and load the extension that reads it while opening, before
// any SET of the sandbox could apply. External access is closed by the
// sandbox's first SET instead: the Go driver applies DSN options in no fixed
// order, and once enable_external_access is off DuckDB refuses the
// temp_directory that must come with it.
const openConfig = "autoinstall_known_extensions=false&autoload_known_extensions=false"

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
// read-only file written by an older rewind. libConn installs them on demand,
// the files a statement calls before it runs (library.go), so they come after
// the sandbox: creating a macro needs no file access, and nothing runs
// unsandboxed. views, when given, stand for the schema, and the whole library
// is installed here, before them (macros bind to tables when created).
func connInit(ctx context.Context, writable bool, views []string, settings []string) func(driver.ExecerContext) error {
	var mu sync.Mutex // connections may be opened concurrently; the SETs must not interleave
	return func(ex driver.ExecerContext) (err error) {
		mu.Lock()
		defer mu.Unlock()
		if err := configure(ctx, ex, settings); err != nil {
			return err
		}
		if views != nil && len(views) == 0 {
			return nil // a bare database: no tables, no library
		}
		if views != nil {
			// The library is installed over empty tables, which the views
			// then replace: a macro binds its tables when created, and
			// binding a view over Parquet parts reads their footers, once
			// per macro. A call binds the macro again, over the views.
			defer func() {
				if err == nil {
					err = replaceTables(ctx, ex, views)
				}
			}()
		}
		if writable {
			if _, err := ex.ExecContext(ctx, queries.Schema, nil); err != nil {
				return fmt.Errorf("create schema: %w", err)
			}
		} else if err := standIns(ctx, ex); err != nil {
			return err
		}
		if views == nil {
			// libConn installs the library on demand; tables that are not
			// rewind's are refused here, as binding the library did
			for _, q := range queries.Columns() {
				if _, err := ex.ExecContext(ctx, q, nil); err != nil {
					return fmt.Errorf("rewind's analyses do not fit this database's tables: %w", err)
				}
			}
			return nil
		}
		return queries.Install(ctx, func(ctx context.Context, q string) error {
			_, err := ex.ExecContext(ctx, queries.Temp(q), nil)
			return err
		})
	}
}

// replaceTables runs the statements that stand for the schema's tables,
// dropping the table each CREATE VIEW names first.
func replaceTables(ctx context.Context, ex driver.ExecerContext, views []string) error {
	for _, v := range views {
		if rest, ok := strings.CutPrefix(v, "CREATE VIEW "); ok {
			name, _, _ := strings.Cut(rest, " ")
			if _, err := ex.ExecContext(ctx, "DROP TABLE IF EXISTS "+name, nil); err != nil {
				return fmt.Errorf("read the dataset: %w", err)
			}
		}
		if _, err := ex.ExecContext(ctx, v, nil); err != nil {
			return fmt.Errorf("read the dataset: %w", err)
		}
	}
	return nil
}

// standIns makes a file written by an older rewind readable by this one's
// library on a read-only connection, which cannot add to the file: an
// empty TEMP table for each table the library reads that the file lacks,
// and a TEMP view in front of each table that lacks columns schema.sql
// added since, with those columns NULL. Each probe fails only then.
func standIns(ctx context.Context, ex driver.ExecerContext) error {
	for _, t := range queries.StandIns {
		if _, err := ex.ExecContext(ctx, "SELECT 1 FROM "+t+" LIMIT 0", nil); err == nil {
			continue
		}
		if _, err := ex.ExecContext(ctx, queries.StandIn(t), nil); err != nil {
			return fmt.Errorf("stand in for table %s: %w", t, err)
		}
	}
	var tables []string
	missing := map[string]string{} // table: ", NULL::TYPE AS col" for each column it lacks
	for _, c := range queries.AddedColumns() {
		if _, err := ex.ExecContext(ctx, "SELECT "+c.Name+" FROM "+c.Table+" LIMIT 0", nil); err == nil {
			continue
		}
		if _, ok := missing[c.Table]; !ok {
			tables = append(tables, c.Table)
		}
		missing[c.Table] += ", NULL::" + c.Type + " AS " + c.Name
	}
	if len(tables) == 0 {
		return nil
	}
	catalog, err := currentDatabase(ctx, ex)
	if err != nil {
		return fmt.Errorf("stand in for columns: %w", err)
	}
	for _, t := range tables {
		q := "CREATE TEMP VIEW " + t + " AS SELECT *" + missing[t] + " FROM " + catalog + ".main." + t
		if _, err := ex.ExecContext(ctx, q, nil); err != nil {
			return fmt.Errorf("stand in for the columns of %s: %w", t, err)
		}
	}
	return nil
}

// currentDatabase is the connection's database, quoted: what a TEMP view
// named as one of its tables reads the table through.
func currentDatabase(ctx context.Context, ex driver.ExecerContext) (string, error) {
	v, err := queryValue(ctx, ex, "SELECT current_database()")
	if err != nil {
		return "", err
	}
	name, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("current_database() is %T", v)
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`, nil
}

// Prepare creates rewind's tables and (re)installs the SQL library.
func Prepare(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, queries.Schema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	return queries.Install(ctx, func(ctx context.Context, q string) error {
		_, err := db.ExecContext(ctx, q)
		return err
	})
}

// Context is the background context: a *DB is a Querier whose queries
// cannot be cancelled (WithContext binds one that can).
func (db *DB) Context() context.Context { return context.Background() }

// Arrow reads a query's result by Arrow batches, as Querier.Arrow does.
func (db *DB) Arrow(query string, args []any, fn func(arrow.RecordBatch) error) error {
	return WithContext(context.Background(), db.DB).Arrow(query, args, fn)
}
