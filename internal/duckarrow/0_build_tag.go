//go:build !duckdb_arrow

// Package duckarrow lends DuckDB's Arrow interface of a database/sql
// connection, for ingest (which appends batches) and store (which reads
// them).
package duckarrow

// rewind needs DuckDB's Arrow interface, which duckdb-go compiles only with
// the build tag duckdb_arrow (it cannot be turned on any other way). Built
// without it, this package holds only this declaration, whose undefined
// name says the fix: go build -tags duckdb_arrow ./cmd/rewind.
type buildTagMissing rewind_needs_the_build_tag__go_build_tags_duckdb_arrow
