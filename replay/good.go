package replay

import (
	"context"
	"database/sql"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// Good evaluates a --good expression (a SQL boolean over request columns)
// on one live line at a time, for rewind watch --stop-on burn-rate: the
// same expression analyze burn-rate and replay evaluate over the requests
// table. It runs in a DuckDB of its own, in memory, with no access to any
// file. A line offers run, role, outcome, status, latency_ms, t_ms, tagged
// and count; an expression that reads another column is refused when the
// evaluator is made.
type Good struct {
	db   *store.DB
	stmt *sql.Stmt
}

// GoodColumns are the columns a live line offers.
const GoodColumns = "run, role, outcome, status, latency_ms, t_ms, tagged, count"

// NewGood checks good as analyze burn-rate does and prepares it.
func NewGood(ctx context.Context, good string) (*Good, error) {
	db, err := store.Open(ctx, "", store.Options{Mode: store.Memory})
	if err != nil {
		return nil, err
	}
	g := &Good{db: db}
	fail := func(err error) (*Good, error) {
		db.Close()
		return nil, err
	}
	if err := hypothesis.CheckGood(store.WithContext(ctx, db), good, ""); err != nil {
		return fail(err)
	}
	g.stmt, err = db.PrepareContext(ctx, `SELECT (`+good+`)::BOOLEAN FROM (SELECT ?::VARCHAR AS run, ?::VARCHAR AS role,
		?::VARCHAR AS outcome, ?::INTEGER AS status, ?::DOUBLE AS latency_ms, ?::DOUBLE AS t_ms, ?::BOOLEAN AS tagged,
		?::BIGINT AS count) requests`)
	if err != nil {
		return fail(param.Errorf("good", "{good} %q: a live line offers %s: %w", good, GoodColumns, err))
	}
	return g, nil
}

// Eval is the expression on one line: nil when it is NULL (no SLI event).
func (g *Good) Eval(a ingest.Attempt) (*bool, error) {
	opt := func(ok bool, v any) any {
		if ok {
			return v
		}
		return nil
	}
	var b sql.NullBool
	err := g.stmt.QueryRow(a.Run, a.Role, opt(a.Outcome != "", a.Outcome), opt(a.HasStatus, a.Status),
		opt(a.HasLatency, a.LatencyMs), opt(a.HasTMs, a.TMs), a.Tagged, a.Count).Scan(&b)
	if err != nil || !b.Valid {
		return nil, err
	}
	return &b.Bool, nil
}

// Close frees the evaluator's database.
func (g *Good) Close() error {
	g.stmt.Close()
	return g.db.Close()
}
