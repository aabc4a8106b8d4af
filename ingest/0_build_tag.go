//go:build !duckdb_arrow

package ingest

// rewind needs DuckDB's Arrow interface, which duckdb-go compiles only with
// the build tag duckdb_arrow (it cannot be turned on any other way). Built
// without it, this declaration fails first, and the undefined name says the
// fix.
type buildTagMissing rewind_needs_the_build_tag__go_build_tags_duckdb_arrow
