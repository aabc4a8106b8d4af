package analyze

import (
	"context"
	"slices"
	"strings"
	"testing"

	isandbox "github.com/rewind-dev/rewind/internal/sandbox"
	"github.com/rewind-dev/rewind/store"
)

// refusedCalls are DuckDB 1.5.6's table and pragma functions that a
// sandboxed query may not call: they read or write files, run SQL text,
// switch logging or profiling, or change settings. A function in neither
// this list nor the allow-list (a new DuckDB's) fails
// TestSandboxAllowListComplete, so someone decides.
var refusedCalls = []string{
	"add_parquet_key", "all_profiling_output", "arrow_scan", "arrow_scan_dumb", "check_peg_parser",
	"checkpoint", "copy_database", "disable_checkpoint_on_shutdown", "disable_logging", "disable_object_cache",
	"disable_optimizer", "disable_peg_parser", "disable_print_progress_bar", "disable_profile",
	"disable_profiling", "disable_progress_bar", "disable_verification", "disable_verify_external",
	"disable_verify_fetch_row", "disable_verify_parallelism", "disable_verify_serializer",
	"duckdb_log_contexts", "duckdb_logs", "duckdb_prepared_statements", "duckdb_secrets", "duckdb_external_file_cache",
	"enable_checkpoint_on_shutdown", "enable_logging", "enable_object_cache", "enable_optimizer",
	"enable_peg_parser", "enable_print_progress_bar", "enable_profile", "enable_profiling",
	"enable_progress_bar", "enable_verification", "force_checkpoint", "glob", "import_database",
	"json_execute_serialized_sql", "parquet_bloom_probe", "parquet_file_metadata", "parquet_full_metadata",
	"parquet_kv_metadata", "parquet_metadata", "parquet_scan", "parquet_schema", "query", "query_table",
	"read_blob", "read_csv", "read_csv_auto", "read_duckdb", "read_json", "read_json_auto",
	"read_json_objects", "read_json_objects_auto", "read_ndjson", "read_ndjson_auto", "read_ndjson_objects",
	"read_parquet", "read_text", "seq_scan", "sniff_csv", "sql_auto_complete",
	"truncate_duckdb_logs", "verify_external", "verify_fetch_row", "verify_parallelism", "verify_serializer",
	"which_secret",
}

// tableAndPragmaFunctions lists the built-in table and pragma functions,
// with whether each is a pragma only.
func tableAndPragmaFunctions(t *testing.T, q store.Querier) map[string]bool {
	t.Helper()
	rows, err := q.Query(`SELECT function_name, bool_and(function_type = 'pragma') FROM duckdb_functions()
		WHERE database_name = 'system' AND function_type IN ('table', 'pragma') GROUP BY 1 ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	fns := map[string]bool{}
	for rows.Next() {
		var name string
		var pragma bool
		if err := rows.Scan(&name, &pragma); err != nil {
			t.Fatal(err)
		}
		fns[name] = pragma
	}
	return fns
}

// TestSandboxAllowListComplete: every table and pragma function DuckDB has
// is either allowed or known to be refused.
func TestSandboxAllowListComplete(t *testing.T) {
	db := readOnly(t, chaosFile(t, nil), store.Options{})
	for name := range tableAndPragmaFunctions(t, db) {
		known := slices.Contains(isandbox.Tables, name) || slices.Contains(isandbox.Pragmas, name) || slices.Contains(refusedCalls, name)
		if !known {
			t.Errorf("%s: a table or pragma function neither allowed nor refused: decide", name)
		}
	}
}

// TestSandboxRefusesCalls: each refused function is refused as a call, a
// FROM item, inside CREATE TEMP TABLE ... AS and as a PRAGMA, by rewind sql
// and in a notebook cell alike, before it runs (enable_logging to a file the
// sandbox forbids used to abort the process); the database is unchanged.
func TestSandboxRefusesCalls(t *testing.T) {
	path := chaosFile(t, nil)
	before := fileSum(t, path)
	db := readOnly(t, path, store.Options{})
	q := store.WithContext(context.Background(), db)
	fns := tableAndPragmaFunctions(t, q)
	for _, name := range refusedCalls {
		pragma, ok := fns[name]
		if !ok {
			t.Errorf("%s: not a DuckDB function any more", name)
			continue
		}
		stmts := []string{"CALL " + name + "()", "SELECT * FROM main." + name + "('x')",
			"CREATE TEMP TABLE x AS SELECT * FROM \"" + strings.ToUpper(name) + "\" ( )"}
		if pragma {
			stmts = []string{"PRAGMA " + name, "PRAGMA " + name + "='x'"}
		}
		for _, s := range stmts {
			if _, err := SQL(q, s); !store.Sandboxed(err) {
				t.Errorf("%s: got %v, want a refusal", s, err)
			}
		}
	}
	crash := "CALL enable_logging(storage := 'file', storage_path := 'out/log'); SELECT 1"
	if _, err := SQL(q, crash); !isandbox.Refusal(err) {
		t.Errorf("rewind sql %s: got %v, want a refusal", crash, err)
	}
	for _, ok := range []string{"SELECT count(*) FROM range(3)", "PRAGMA table_info('requests')",
		"SELECT 'CALL enable_logging()' AS s", "SELECT count(*) FROM duckdb_functions()"} {
		if _, err := SQL(q, ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	db.Close()
	if fileSum(t, path) != before {
		t.Errorf("the database file changed")
	}
}

// TestSandboxQueriesRun: the database itself is readable with every macro;
// TEMP tables (notebook cells' names) work; writes to it are refused.
func TestSandboxQueriesRun(t *testing.T) {
	db := readOnly(t, chaosFile(t, nil), store.Options{})
	var n int64
	if err := db.QueryRow(`SELECT count(*) FROM falsification('gunluk', size_n := 40)`).Scan(&n); err != nil || n != 4 {
		t.Errorf("falsification: %d rows, %v; want 4", n, err)
	}
	if _, err := db.Exec(`CREATE TEMP TABLE w AS SELECT * FROM windows('gunluk', 'experiment', size_n := 40)`); err != nil {
		t.Errorf("temp table: %v", err)
	}
	refused(t, db, `DELETE FROM requests`, "read-only")
	res, err := BlastRadius(db, BlastRadiusOptions{Planned: "tag_hash(20260731, req) < 0.05"})
	if err != nil || res.Rows[0][0] != int64(11) {
		t.Errorf("blast radius under the sandbox: %v, %v; want 11 planned", res, err)
	}
}

// refused runs q on a sandboxed database and wants DuckDB's permission error.
func refused(t *testing.T, db *store.DB, q, want string) {
	t.Helper()
	_, err := db.Exec(q)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: got %v, want an error with %q", q, err, want)
	}
}
