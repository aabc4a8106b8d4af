package analyze

import (
	"context"
	"database/sql"
)

// Querier is what the analyses need of a database; *sql.DB, *sql.Conn and
// *sql.Tx satisfy it.
type Querier interface {
	Query(query string, args ...any) (*sql.Rows, error)
	QueryRow(query string, args ...any) *sql.Row
}

// ctxQuerier adapts a context-taking database handle.
type ctxQuerier struct {
	ctx context.Context
	db  interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	}
}

func (c ctxQuerier) Query(q string, args ...any) (*sql.Rows, error) {
	return c.db.QueryContext(c.ctx, q, args...)
}

func (c ctxQuerier) QueryRow(q string, args ...any) *sql.Row {
	return c.db.QueryRowContext(c.ctx, q, args...)
}

// WithContext binds a context to a *sql.DB (or Conn/Tx) for the analyses.
func WithContext(ctx context.Context, db interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) Querier {
	return ctxQuerier{ctx: ctx, db: db}
}
