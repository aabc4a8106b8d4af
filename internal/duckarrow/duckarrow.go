//go:build duckdb_arrow

// Package duckarrow lends DuckDB's Arrow interface of a database/sql
// connection, for ingest (which appends batches) and store (which reads
// them).
package duckarrow

import (
	"database/sql"
	"database/sql/driver"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// Of is DuckDB's Arrow interface on conn's driver connection. What it
// returns is valid while conn is held: a reader or view made from it holds
// the driver connection.
func Of(conn *sql.Conn) (*duckdb.Arrow, error) {
	var ar *duckdb.Arrow
	err := conn.Raw(func(dc any) error {
		if w, ok := dc.(interface{ DuckDB() driver.Conn }); ok {
			dc = w.DuckDB() // store's connection, which installs the library on demand
		}
		var err error
		ar, err = duckdb.NewArrowFromConn(dc.(driver.Conn))
		return err
	})
	return ar, err
}
