package store

import (
	"context"
)

// DuckDBVersion is the version of the DuckDB library linked into rewind,
// asked of an in-memory database.
func DuckDBVersion(ctx context.Context) (string, error) {
	db, err := Open(ctx, "", Options{Mode: Memory})
	if err != nil {
		return "", err
	}
	defer db.Close()
	var v, src string
	if err := db.QueryRowContext(ctx, `SELECT library_version, source_id FROM pragma_version()`).Scan(&v, &src); err != nil {
		return "", err
	}
	return v + " (" + src + ")", nil
}
