// Package sandbox owns what keeps untrusted SQL inside the database: the
// settings that close DuckDB's access to files, URLs and extensions, and the
// allow-list of functions a sandboxed query may call. analyze applies both to
// every read-only open; ingest applies the settings before it evaluates a
// --map expression.
package sandbox

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Settings close file, URL and extension access. A read-only DuckDB file
// still lets a query COPY ... TO any path (the database file itself
// included), ATTACH another file READ_WRITE and change it, read any file
// (read_text, read_csv, glob), fetch URLs and INSTALL extensions.
// enable_external_access = false closes all of those (Permission Error:
// file system operations are disabled by configuration) while queries on the
// open database and spilling to temp_directory still work. It cannot be
// undone while the database instance lives.
var Settings = []string{
	"SET enable_external_access = false",
	"SET autoinstall_known_extensions = false",
	"SET autoload_known_extensions = false",
	"SET allow_community_extensions = false",
}

// Lock comes after Settings on a read-only open: after it no SET can undo
// them.
const Lock = "SET lock_configuration = true"

// ErrRefused marks a query that calls a function outside the allow-list.
var ErrRefused = errors.New("not allowed in the read-only sandbox")

// Tables are the table functions a sandboxed query may call: generators and
// the catalog's own views. Every other table function is refused, a new one
// of a later DuckDB included: file readers (read_*, glob, parquet_*,
// sniff_csv), SQL runners (query, query_table, json_execute_serialized_sql),
// logging and profiling switches (enable_logging writes its log where it is
// told and aborts the process when the sandbox refuses the file), and
// internals that take raw pointers (arrow_scan).
var Tables = []string{
	"duckdb_approx_database_count", "duckdb_columns", "duckdb_connection_count", "duckdb_constraints",
	"duckdb_coordinate_systems", "duckdb_databases", "duckdb_dependencies", "duckdb_extensions",
	"duckdb_functions", "duckdb_indexes", "duckdb_keywords", "duckdb_memory", "duckdb_optimizers",
	"duckdb_schemas", "duckdb_secret_types", "duckdb_sequences", "duckdb_settings", "duckdb_table_sample",
	"duckdb_tables", "duckdb_temporary_files", "duckdb_types", "duckdb_variables", "duckdb_views",
	"generate_series", "icu_calendar_names", "json_each", "json_tree", "pg_timezone_names",
	"pragma_collations", "pragma_database_size", "pragma_metadata_info", "pragma_platform", "pragma_show",
	"pragma_storage_info", "pragma_table_info", "pragma_user_agent", "pragma_version", "range", "repeat",
	"repeat_row", "summary", "test_all_types", "test_vector_types", "unnest",
}

// Pragmas are the PRAGMAs a sandboxed query may run: those that only read
// the catalog. The others change settings or print profiles to the terminal.
var Pragmas = []string{
	"collations", "database_list", "database_size", "extension_versions", "functions", "metadata_info",
	"platform", "show", "show_databases", "show_tables", "show_tables_expanded", "storage_info",
	"table_info", "user_agent", "version",
}

// deniedScalars are scalar functions with an effect outside the query.
var deniedScalars = []string{"json_execute_serialized_sql", "write_log"}

// catalog maps a built-in function name to its kinds (scalar, table, ...),
// read once per process: the built-ins are the same for every database.
var catalog struct {
	sync.Mutex
	kinds map[string][]string
}

// Queryer is what Check needs of a database (analyze.Querier is one).
type Queryer interface {
	Query(query string, args ...any) (*sql.Rows, error)
	QueryRow(query string, args ...any) *sql.Row
}

// Check refuses q when db is sandboxed (external access off) and q calls a
// built-in function outside the allow-list. On a database opened for
// writing it allows everything, as the duckdb CLI would.
func Check(db Queryer, q string) error {
	var open bool
	if err := db.QueryRow(`SELECT current_setting('enable_external_access')`).Scan(&open); err != nil {
		return err
	}
	if open {
		return nil
	}
	if err := selectOnly(db, q); err != nil {
		return err
	}
	kinds, err := builtins(db)
	if err != nil {
		return err
	}
	for _, c := range Calls(q) {
		if !allowed(c, kinds[c.Name]) {
			return fmt.Errorf("%s: %w", c.Name, ErrRefused)
		}
	}
	return nil
}

// DatasetVariable is the DuckDB variable a database that reads a dataset in
// place sets (true) before its sandbox locks.
const DatasetVariable = "rewind_dataset"

// selectOnly refuses anything but SELECT where the sandbox lets the
// database read some directories (a Parquet dataset read in place): DuckDB
// would let COPY ... TO write into them. A statement DuckDB cannot
// serialize is not a plain SELECT.
func selectOnly(db Queryer, q string) error {
	var dataset bool
	if err := db.QueryRow(`SELECT coalesce(getvariable('` + DatasetVariable + `'), false)`).Scan(&dataset); err != nil || !dataset {
		return err
	}
	var bad bool
	if err := db.QueryRow(`SELECT coalesce((json_serialize_sql($1::VARCHAR)->>'error')::BOOLEAN, true)`, q).Scan(&bad); err != nil {
		return err
	}
	if bad {
		return fmt.Errorf("only SELECT statements read a dataset in place: %w", ErrRefused)
	}
	return nil
}

// allowed decides one call: a name that is no built-in function (a table,
// a macro, a type) is not the allow-list's business.
func allowed(c Call, kinds []string) bool {
	if c.Pragma {
		return slices.Contains(Pragmas, c.Name) || len(kinds) == 0
	}
	for _, k := range kinds {
		switch k {
		case "table", "pragma":
			if !slices.Contains(Tables, c.Name) {
				return false
			}
		}
	}
	return !slices.Contains(deniedScalars, c.Name)
}

func builtins(db Queryer) (map[string][]string, error) {
	catalog.Lock()
	defer catalog.Unlock()
	if catalog.kinds != nil {
		return catalog.kinds, nil
	}
	rows, err := db.Query(`SELECT DISTINCT lower(function_name), function_type FROM duckdb_functions()
		WHERE database_name = 'system' ORDER BY ALL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	kinds := map[string][]string{}
	for rows.Next() {
		var name, kind string
		if err := rows.Scan(&name, &kind); err != nil {
			return nil, err
		}
		kinds[name] = append(kinds[name], kind)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	catalog.kinds = kinds
	return kinds, nil
}

// Refusal is a query's refusal as the user reads it.
func Refusal(err error) bool { return errors.Is(err, ErrRefused) }

// lowerASCII lowers an identifier as DuckDB's catalog does.
func lowerASCII(s string) string { return strings.ToLower(s) }
