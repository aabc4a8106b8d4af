package notebook

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/rewind-dev/rewind/internal/sandbox"
	"github.com/rewind-dev/rewind/store"
)

// Result is what a cell's query returned. Rows holds at most the display
// limit; Omitted counts the rows past it. Chart cells keep every row.
type Result struct {
	Columns []string
	Rows    [][]any
	Omitted int
}

// Run parses src, runs its SQL cells in order against db and returns the
// notebook with every cell's Result set. name is the notebook's file name,
// used in errors: "walkthrough.md:42: sql cell: Binder Error: ...".
//
// All cells run on one connection so that a named cell's TEMP TABLE is
// visible to later cells. That connection is discarded afterwards rather than
// returned to db's pool, so the notebook's temp tables and session settings
// never leak into the caller's other work.
func Run(ctx context.Context, db *sql.DB, name string, src []byte, opts Options) (*Notebook, error) {
	parts, err := parse(name, string(src))
	if err != nil {
		return nil, err
	}
	nb := &Notebook{Name: name, parts: parts, opts: opts.withDefaults()}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: open connection: %w", name, err)
	}
	defer discard(conn)
	for _, p := range parts {
		if p.cell == nil {
			continue
		}
		if err := nb.runCell(ctx, conn, p.cell); err != nil {
			return nil, fmt.Errorf("%s:%d: sql cell: %w", name, p.cell.Line, err)
		}
	}
	return nb, nil
}

// discard closes conn so that the pool drops it instead of reusing it.
func discard(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	_ = conn.Close()
}

func (nb *Notebook) runCell(ctx context.Context, conn *sql.Conn, c *Cell) error {
	query := c.SQL
	if err := sandbox.Check(ctxConn{ctx, conn}, query); err != nil {
		return err
	}
	if c.Name != "" {
		// A named cell is one query; its result becomes a TEMP TABLE and is
		// shown from there. DuckDB keeps the query's ORDER BY in the table's
		// scan order while preserve_insertion_order is on (its default).
		create := fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS\n%s", quoteIdent(c.Name), trimStatement(c.SQL))
		if _, err := conn.ExecContext(ctx, create); err != nil {
			return err
		}
		query = "SELECT * FROM " + quoteIdent(c.Name)
	}
	limit := nb.opts.MaxRows
	if c.Chart != "" {
		limit = -1
	}
	res, err := query1(ctx, conn, query, limit)
	if err != nil {
		return err
	}
	c.Result = res
	if c.Chart != "" {
		_, err = nb.chart(c)
	}
	return err
}

// query1 runs one query and reads up to limit rows (all when limit < 0),
// counting the rest.
func query1(ctx context.Context, conn *sql.Conn, query string, limit int) (*Result, error) {
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	res := &Result{Columns: cols}
	for rows.Next() {
		if limit >= 0 && len(res.Rows) >= limit {
			res.Omitted++
			continue
		}
		vals, err := store.ScanAny(rows, len(cols))
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, vals)
	}
	return res, rows.Err()
}

// trimStatement drops trailing blanks and semicolons, which are fine alone
// but not inside CREATE TABLE ... AS.
func trimStatement(s string) string {
	return strings.TrimRight(s, " \t\r\n;")
}

func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// ctxConn is conn as the sandbox's check reads it.
type ctxConn struct {
	ctx  context.Context
	conn *sql.Conn
}

func (c ctxConn) Query(q string, args ...any) (*sql.Rows, error) {
	return c.conn.QueryContext(c.ctx, q, args...)
}

func (c ctxConn) QueryRow(q string, args ...any) *sql.Row {
	return c.conn.QueryRowContext(c.ctx, q, args...)
}
