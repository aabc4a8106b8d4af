package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rewind-dev/rewind/internal/duckarrow"
)

// Querier is what the analyses need of a database: queries bound to one
// context, read by rows or, for results of many rows, by Arrow batches.
// WithContext makes one from a *sql.DB, *sql.Conn or *sql.Tx (or a *DB).
type Querier interface {
	Query(query string, args ...any) (*sql.Rows, error)
	QueryRow(query string, args ...any) *sql.Row
	// Arrow runs query and hands its result to fn batch by batch (DuckDB's
	// Arrow interface: 2048 rows a batch), several times faster than
	// rows.Scan for many rows. The batches are valid only inside fn. A
	// querier over a *sql.Tx has no driver connection to lend and returns
	// ErrNoArrow before the query runs.
	Arrow(query string, args []any, fn func(arrow.RecordBatch) error) error
	// Context is the context every query runs under.
	Context() context.Context
}

// Handle is a database handle a Querier is made from: *sql.DB, *sql.Conn,
// *sql.Tx and *DB have these methods.
type Handle interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// ErrNoArrow means the handle cannot lend a driver connection (a *sql.Tx):
// read its result with rows.Scan instead.
var ErrNoArrow = errors.New("no driver connection to read Arrow batches from")

// WithContext binds ctx to a database handle for the analyses.
func WithContext(ctx context.Context, db Handle) Querier {
	return ctxQuerier{ctx: ctx, db: db}
}

type ctxQuerier struct {
	ctx context.Context
	db  Handle
}

func (c ctxQuerier) Context() context.Context { return c.ctx }

func (c ctxQuerier) Query(q string, args ...any) (*sql.Rows, error) {
	return c.db.QueryContext(c.ctx, q, args...)
}

func (c ctxQuerier) QueryRow(q string, args ...any) *sql.Row {
	return c.db.QueryRowContext(c.ctx, q, args...)
}

// connLender is what lends a driver connection: *sql.DB and *sql.Conn.
type connLender interface {
	Conn(ctx context.Context) (*sql.Conn, error)
}

func (c ctxQuerier) Arrow(query string, args []any, fn func(arrow.RecordBatch) error) error {
	var conn *sql.Conn
	switch h := c.db.(type) {
	case *sql.Conn:
		conn = h
	case connLender:
		lent, err := h.Conn(c.ctx)
		if err != nil {
			return err
		}
		defer lent.Close()
		conn = lent
	default:
		return ErrNoArrow
	}
	// the reader holds the driver connection: conn is held until it is
	// released
	if err := conn.Raw(func(dc any) error { return needLibrary(c.ctx, dc, query) }); err != nil {
		return err
	}
	ar, err := duckarrow.Of(conn)
	if err != nil {
		return err
	}
	rr, err := ar.QueryContext(c.ctx, query, args...)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		if err := fn(rr.RecordBatch()); err != nil {
			return err
		}
	}
	return rr.Err()
}

// ScanAny scans the current row of rows into one value per column, as
// the driver gives them: the rows of a query whose columns are known only
// when it runs (an analysis's table, a notebook cell).
func ScanAny(rows *sql.Rows, columns int) ([]any, error) {
	vals := make([]any, columns)
	ptrs := make([]any, columns)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	return vals, nil
}
