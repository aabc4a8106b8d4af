package dataset

import (
	"context"
	"fmt"

	"github.com/rewind-dev/rewind/store"
)

// Load copies the dataset in dir into db, which must hold no rows yet (its
// file ids and seqs are the dataset's), in one transaction: every part is
// checked first, and on any error nothing is loaded. It returns the rows
// loaded per table.
func Load(ctx context.Context, db *store.DB, dir string) (map[string]int64, error) {
	p, err := scan(ctx, dir)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var used int64
	if err := conn.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM files) + (SELECT count(*) FROM experiments)`).Scan(&used); err != nil {
		return nil, err
	}
	if used > 0 {
		return nil, fmt.Errorf("%s holds data already: a dataset loads into a new database", db.Path())
	}
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return nil, err
	}
	counts := map[string]int64{}
	for _, t := range tables {
		res, err := conn.ExecContext(ctx, "INSERT INTO "+t.name+" BY NAME "+p.selectSQL(t))
		if err == nil {
			counts[t.name], err = res.RowsAffected()
		}
		if err != nil {
			conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") //nolint:errcheck // the error is the news
			return nil, fmt.Errorf("load %s: %s", t.name, firstLine(err))
		}
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	return counts, nil
}
