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
	"regexp"
	"sort"
	"strings"
	"sync"
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
	for rest := sql; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
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

// NoUnit is the unit a "-- Units:" line gives a column without one (a
// name, a flag, a count of something other than requests).
const NoUnit = "-"

// MetricUnit is the unit a "-- Units:" line gives a column in the unit of
// the macro's metric argument: the caller, which knows the metric, fills it.
const MetricUnit = "(metric)"

// Unit is one output column of a macro and its unit.
type Unit struct {
	Column, Unit string
}

// Declared returns a macro's output columns in order with their units, from
// its file's header lines "-- Units: MACRO: col=unit col=unit ..." (several
// lines for one macro continue each other); nil for a macro without one.
func Declared(macro string) []Unit {
	return declared()[macro]
}

// Units returns a macro's column units by column name, leaving out the
// columns declared NoUnit, so that a lookup of one gives "".
func Units(macro string) map[string]string {
	units := map[string]string{}
	for _, u := range Declared(macro) {
		if u.Unit != NoUnit {
			units[u.Column] = u.Unit
		}
	}
	return units
}

var declared = sync.OnceValue(func() map[string][]Unit {
	out := map[string][]Unit{}
	for _, f := range Files() {
		for macro, units := range unitsLines(f.SQL) {
			out[macro] = append(out[macro], units...)
		}
	}
	return out
})

// unitsLines reads the header's "-- Units:" lines, by macro. A malformed
// entry is kept as it reads (an empty column or unit), for TestUnitsLines.
func unitsLines(sql string) map[string][]Unit {
	out := map[string][]Unit{}
	for _, line := range strings.Split(sql, "\n") {
		if !strings.HasPrefix(line, "--") {
			break // the header ends at the first statement
		}
		rest, ok := strings.CutPrefix(line, "-- Units:")
		if !ok {
			continue
		}
		macro, entries, _ := strings.Cut(rest, ":")
		macro = strings.TrimSpace(macro)
		for _, e := range strings.Fields(entries) {
			col, unit, _ := strings.Cut(e, "=")
			out[macro] = append(out[macro], Unit{Column: col, Unit: unit})
		}
	}
	return out
}

// Exec is what Install needs of a database: *sql.DB and *sql.Conn have it.
type Exec func(ctx context.Context, query string) error

// Install creates or replaces every macro of the library, in Files' order.
func Install(ctx context.Context, exec Exec) error {
	for _, f := range Files() {
		if err := exec(ctx, f.SQL); err != nil {
			// the user's words: which library file failed is rewind's business
			return fmt.Errorf("rewind's analyses do not fit this database's tables: %w", err)
		}
	}
	return nil
}

// Needs returns the files whose macros query names, with the files they use
// (their -- Uses: lines, transitively), in Files' order: what a connection
// must have installed for query to call this binary's macros and no others.
// A name counts wherever it stands as a word, in a string or a comment too,
// and in any case (DuckDB's names are): that installs a file more than
// needed, never one fewer. A library file's own text (Library) needs none.
func Needs(query string) []File {
	lib := library()
	if lib.text[query] {
		return nil
	}
	var need []bool
	for i := 0; i < len(query); {
		c := query[i]
		if !wordStart(c) {
			i++
			continue
		}
		j := i + 1
		for j < len(query) && (wordStart(query[j]) || '0' <= query[j] && query[j] <= '9') {
			j++
		}
		if f, ok := lib.macro[strings.ToLower(query[i:j])]; ok {
			if need == nil {
				need = make([]bool, len(lib.files))
			}
			for _, u := range lib.closure[f] {
				need[u] = true
			}
		}
		i = j
	}
	var out []File
	for i, n := range need {
		if n {
			out = append(out, lib.files[i])
		}
	}
	return out
}

func wordStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}

// Library reports whether sql is one of the library's files, as Files gives
// it (Prepare installs them through the same connections).
func Library(sql string) bool { return library().text[sql] }

// library is Files with, for Needs, each macro's file and each file's
// closure (itself and the files it uses, transitively), by index in Files.
var library = sync.OnceValue(func() (lib struct {
	files   []File
	macro   map[string]int
	closure [][]int
	text    map[string]bool
}) {
	lib.files = Files()
	lib.macro = map[string]int{}
	lib.text = map[string]bool{}
	index := map[string]int{}
	for i, f := range lib.files {
		index[f.Name] = i
		lib.text[f.SQL] = true
		for rest := f.SQL; rest != ""; {
			var line string
			line, rest, _ = strings.Cut(rest, "\n")
			if name, ok := strings.CutPrefix(line, "CREATE OR REPLACE MACRO "); ok {
				name, _, _ = strings.Cut(name, "(")
				lib.macro[name] = i
			}
		}
	}
	lib.closure = make([][]int, len(lib.files))
	for i, f := range lib.files { // a file comes after the files it uses
		seen := map[int]bool{i: true}
		lib.closure[i] = []int{i}
		for _, u := range f.Uses {
			for _, k := range lib.closure[index[u]] {
				if !seen[k] {
					seen[k] = true
					lib.closure[i] = append(lib.closure[i], k)
				}
			}
		}
	}
	return lib
})

// Temp rewrites a file's statements to create TEMP macros, which live on one
// connection and take precedence over macros stored in the database.
func Temp(sql string) string {
	return strings.ReplaceAll(sql, "CREATE OR REPLACE MACRO", "CREATE OR REPLACE TEMP MACRO")
}

// Columns are the statements that read no row but every column of each
// table schema.sql makes (its ALTERs' too): on a file whose tables are not
// rewind's, one of them fails as installing the library would, which a
// connection that installs it on demand no longer does when it opens.
func Columns() []string { return columns() }

var columns = sync.OnceValue(func() []string {
	var out []string
	added := AddedColumns()
	for _, m := range tableRE.FindAllStringSubmatch(Schema, -1) {
		var cols []string
		for _, line := range strings.Split(m[2], "\n") {
			if c := columnRE.FindStringSubmatch(line); c != nil {
				cols = append(cols, c[1])
			}
		}
		for _, a := range added {
			if a.Table == m[1] {
				cols = append(cols, a.Name)
			}
		}
		out = append(out, "SELECT "+strings.Join(cols, ", ")+" FROM "+m[1]+" LIMIT 0")
	}
	return out
})

var (
	tableRE  = regexp.MustCompile(`(?ms)^CREATE TABLE IF NOT EXISTS (\w+) \((.*?)\n\);`)
	columnRE = regexp.MustCompile(`^\t([a-z_0-9]+)\s+[A-Z]`)
)

// StandIns are the tables of schema.sql that a file written by an older
// rewind may lack and that the library reads (run_gaps, which omission
// reads its stored gaps from): a read-only open, which cannot add them to
// the file, creates each missing one empty as a TEMP table (StandIn), so
// the macros bind and work it out from the rows instead.
var StandIns = []string{"run_gaps"}

// StandIn is table's CREATE statement from schema.sql made TEMP ("" if
// schema.sql has no such table).
func StandIn(table string) string {
	head := "CREATE TABLE IF NOT EXISTS " + table + " ("
	i := strings.Index(Schema, head)
	if i < 0 {
		return ""
	}
	n := strings.Index(Schema[i:], "\n);")
	if n < 0 {
		return ""
	}
	return "CREATE TEMP TABLE IF NOT EXISTS " + table + " (" + Schema[i+len(head):i+n] + "\n);"
}

// AddedColumn is a column schema.sql adds to a table with ALTER TABLE: a
// file written before it lacks it.
type AddedColumn struct{ Table, Name, Type string }

var addedRE = regexp.MustCompile(`(?m)^ALTER TABLE (\w+) ADD COLUMN IF NOT EXISTS (\w+) (\w+);`)

// AddedColumns lists them in schema.sql's order. A read-only open of a file
// that lacks some puts a TEMP view in front of the table with the missing
// ones NULL (what the analyses read as "not recorded": a count window
// without run_pos sorts, as it did before run_pos).
func AddedColumns() []AddedColumn {
	var out []AddedColumn
	for _, m := range addedRE.FindAllStringSubmatch(Schema, -1) {
		out = append(out, AddedColumn{Table: m[1], Name: m[2], Type: m[3]})
	}
	return out
}
