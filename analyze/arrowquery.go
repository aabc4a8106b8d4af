package analyze

import (
	"context"
	"database/sql"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rewind-dev/rewind/ingest"
)

// ErrNoArrow means the handle cannot lend a driver connection (a *sql.Tx):
// read its result with rows.Scan instead.
var ErrNoArrow = errors.New("no driver connection to read Arrow batches from")

// connLender is what lends a driver connection: *sql.DB and *sql.Conn.
type connLender interface {
	Conn(ctx context.Context) (*sql.Conn, error)
}

// QueryArrow runs query on db and hands its result to fn batch by batch
// (DuckDB's Arrow interface: 2048 rows a batch). A result of many rows is
// read this way several times faster than by rows.Scan. The batches are
// valid only inside fn. db must be a *sql.DB or *sql.Conn; anything else
// gets ErrNoArrow before the query runs.
func QueryArrow(ctx context.Context, db any, query string, args []any, fn func(arrow.RecordBatch) error) error {
	var conn *sql.Conn
	switch h := db.(type) {
	case *sql.Conn:
		conn = h
	case connLender:
		c, err := h.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		conn = c
	default:
		return ErrNoArrow
	}
	// the reader holds the driver connection: conn is held until it is
	// released
	ar, err := ingest.ArrowOf(conn)
	if err != nil {
		return err
	}
	rr, err := ar.QueryContext(ctx, query, args...)
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
