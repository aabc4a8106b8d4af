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
	Uses []string // the files whose macros it calls: its header's "-- Uses:" line
}

// Files returns the embedded files in install order: each after the files
// it Uses, otherwise by name. DuckDB binds a macro when it is created, so a
// file that calls another file's macros must come after it.
func Files() []File {
	names, _ := fs.Glob(files, "*.sql")
	sort.Strings(names)
	byName := map[string]File{}
	var order []string
	for _, n := range names {
		if n == "schema.sql" {
			continue
		}
		b, _ := files.ReadFile(n)
		f := File{Name: strings.TrimSuffix(n, ".sql"), SQL: string(b)}
		f.Uses = usesLine(f.SQL)
		byName[f.Name] = f
		order = append(order, f.Name)
	}
	out := make([]File, 0, len(order))
	done := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		f, ok := byName[name]
		if !ok || done[name] {
			return // an unknown name fails TestUsesDeclared, not here
		}
		done[name] = true
		for _, u := range f.Uses {
			visit(u)
		}
		out = append(out, f)
	}
	for _, n := range order {
		visit(n)
	}
	return out
}

// usesLine reads the header's "-- Uses: a, b" line.
func usesLine(sql string) []string {
	for _, line := range strings.Split(sql, "\n") {
		if !strings.HasPrefix(line, "--") {
			break // the header ends at the first statement
		}
		if rest, ok := strings.CutPrefix(line, "-- Uses:"); ok {
			var uses []string
			for _, u := range strings.Split(rest, ",") {
				if u = strings.TrimSpace(u); u != "" {
					uses = append(uses, u)
				}
			}
			return uses
		}
	}
	return nil
}

// Exec is what Install needs of a database: *sql.DB and *sql.Conn have it.
type Exec func(ctx context.Context, query string) error

// Install creates or replaces every macro of the library, in Files' order.
func Install(ctx context.Context, exec Exec) error {
	for _, f := range Files() {
		if err := exec(ctx, f.SQL); err != nil {
			return fmt.Errorf("install queries/%s.sql: %w", f.Name, err)
		}
	}
	return nil
}

// Temp rewrites a file's statements to create TEMP macros, which live on one
// connection and take precedence over macros stored in the database.
func Temp(sql string) string {
	return strings.ReplaceAll(sql, "CREATE OR REPLACE MACRO", "CREATE OR REPLACE TEMP MACRO")
}
