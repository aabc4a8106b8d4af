// Package queries is rewind's SQL library: one .sql file per analysis, each
// opening with a header (the question, its parameters, every output column
// with its unit). Install puts them into a database as DuckDB macros, so the
// same analysis runs from the CLI, from `rewind sql`, and from any DuckDB
// client that opens the file. Macros whose names start with _ are helpers.
package queries

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.sql
var files embed.FS

// Schema creates rewind's tables (schema.sql); it is idempotent. It is not
// one of the library's Files.
//
//go:embed schema.sql
var Schema string

// File is one embedded analysis.
type File struct {
	Name string // file name without .sql: the analysis name with _ for -
	SQL  string
}

// Files returns the embedded files in install order (by name).
func Files() []File {
	names, _ := fs.Glob(files, "*.sql")
	sort.Strings(names)
	out := make([]File, 0, len(names))
	for _, n := range names {
		if n == "schema.sql" {
			continue
		}
		b, _ := files.ReadFile(n)
		out = append(out, File{Name: strings.TrimSuffix(n, ".sql"), SQL: string(b)})
	}
	return out
}

// Exec is what Install needs of a database: *sql.DB and *sql.Conn have it.
type Exec func(ctx context.Context, query string) error

// Install creates or replaces every macro of the library. DuckDB binds a
// macro when it is created, so a file that uses another file's macros must
// come after it; rather than keep an order by hand, files that fail are
// retried after the others until a pass makes no progress.
func Install(ctx context.Context, exec Exec) error {
	pending := Files()
	for len(pending) > 0 {
		var failed []File
		var lastErr error
		for _, f := range pending {
			if err := exec(ctx, f.SQL); err != nil {
				failed = append(failed, f)
				lastErr = fmt.Errorf("install queries/%s.sql: %w", f.Name, err)
			}
		}
		if len(failed) == len(pending) {
			return lastErr
		}
		pending = failed
	}
	return nil
}

// Temp rewrites a file's statements to create TEMP macros, which live on one
// connection and take precedence over macros stored in the database.
func Temp(sql string) string {
	return strings.ReplaceAll(sql, "CREATE OR REPLACE MACRO", "CREATE OR REPLACE TEMP MACRO")
}
