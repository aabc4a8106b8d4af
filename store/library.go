package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/rewind-dev/rewind/queries"
)

// The SQL library is installed on a connection as TEMP macros on demand:
// before a statement runs, the files whose macros its text names (and the
// files those use) that the connection lacks (queries.Needs). Binding the
// whole library took 0.8 G instructions on every open (96 % of a bare
// command's start-up, issue 41), and an analysis calls a few files of it.
// A statement that calls a macro names it, so every call still finds this
// binary's macro ahead of one stored in the file; only a name the text
// does not hold (a query built inside SQL, as query('...' || '...') does)
// finds the stored one, or none in memory.

// libConnector makes connections that install the library on demand.
type libConnector struct {
	*duckdb.Connector
}

func (c libConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	conn, ok := dc.(*duckdb.Conn)
	if !ok {
		dc.Close()
		return nil, fmt.Errorf("not a DuckDB connection: %T", dc)
	}
	return &libConn{Conn: conn, installed: map[string]bool{}}, nil
}

// libConn is a DuckDB connection and the library files installed on it.
// database/sql uses a connection from one goroutine at a time.
type libConn struct {
	*duckdb.Conn
	installed map[string]bool
}

// DuckDB is the driver's own connection (duckarrow lends its Arrow
// interface).
func (c *libConn) DuckDB() driver.Conn { return c.Conn }

// need installs the files query calls that c lacks.
func (c *libConn) need(ctx context.Context, query string) error {
	for _, f := range queries.Needs(query) {
		if c.installed[f.Name] {
			continue
		}
		if _, err := c.Conn.ExecContext(ctx, queries.Temp(f.SQL), nil); err != nil {
			// the user's words: which library file failed is rewind's business
			return fmt.Errorf("rewind's analyses do not fit this database's tables: %w", err)
		}
		c.installed[f.Name] = true
	}
	return nil
}

// after forgets the files installed when query may have rolled back a
// transaction, which takes the TEMP macros made in it along.
func (c *libConn) after(query string) {
	if rolledBack(query) {
		clear(c.installed)
	}
}

// rolledBack reports whether one of query's statements is a ROLLBACK (or
// its synonym ABORT). The words elsewhere in a statement do not count:
// thresholds' specs carry a field "abort", and forgetting the files there
// reinstalled them over the TEMP macros an engine's steps had put in their
// place (an empty _th_bucket_sums on the Spark path's next statement).
func rolledBack(query string) bool {
	for stmt := range strings.SplitSeq(query, ";") {
		if w := strings.Fields(stmt); len(w) > 0 && (strings.EqualFold(w[0], "ROLLBACK") || strings.EqualFold(w[0], "ABORT")) {
			return true
		}
	}
	return false
}

func (c *libConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if err := c.need(ctx, query); err != nil {
		return nil, err
	}
	defer c.after(query)
	return c.Conn.ExecContext(ctx, query, args)
}

func (c *libConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := c.need(ctx, query); err != nil {
		return nil, err
	}
	defer c.after(query)
	return c.Conn.QueryContext(ctx, query, args)
}

func (c *libConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := c.need(ctx, query); err != nil {
		return nil, err
	}
	defer c.after(query)
	return c.Conn.PrepareContext(ctx, query)
}

func (c *libConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *libConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *libConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.Conn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return libTx{tx, c}, nil
}

// libTx forgets the files installed on its connection when it rolls back.
type libTx struct {
	driver.Tx
	c *libConn
}

func (t libTx) Rollback() error {
	clear(t.c.installed)
	return t.Tx.Rollback()
}

// needLibrary installs on the driver connection dc the library files query
// calls that it lacks: what a query run past database/sql (DuckDB's Arrow
// interface) needs first.
func needLibrary(ctx context.Context, dc any, query string) error {
	if c, ok := dc.(*libConn); ok {
		return c.need(ctx, query)
	}
	return nil
}
