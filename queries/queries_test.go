package queries

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var macroRE = regexp.MustCompile(`(?m)^CREATE OR REPLACE MACRO ([a-z_0-9]+)\(`)

// Every file opens with its header, and every public macro has a golden
// CLI case (one name per analysis: stop_damage ↔ testdata/cli/stop-damage)
// and is named in the library's reference, docs/sql.md.
func TestLibraryIsDocumented(t *testing.T) {
	ref, err := os.ReadFile("../docs/sql.md")
	if err != nil {
		t.Fatal(err)
	}
	files := Files()
	if len(files) == 0 {
		t.Fatal("no embedded queries")
	}
	for _, f := range files {
		header, _, _ := strings.Cut(f.SQL, "\nCREATE ")
		if !strings.HasPrefix(header, "-- "+f.Name+": ") {
			t.Errorf("%s.sql: header must start with %q", f.Name, "-- "+f.Name+": ")
		}
		for _, part := range []string{"-- Question:", "-- Parameters:", "-- Columns:"} {
			if !strings.Contains(header, part) {
				t.Errorf("%s.sql: header lacks %q", f.Name, part)
			}
		}
		for _, m := range macroRE.FindAllStringSubmatch(f.SQL, -1) {
			name := m[1]
			if strings.HasPrefix(name, "_") {
				continue
			}
			dash := strings.ReplaceAll(name, "_", "-")
			if cases, _ := filepath.Glob("../cmd/rewind/testdata/cli/" + dash + "*/stdout"); len(cases) == 0 && !coveredBy(name) {
				t.Errorf("macro %s (%s.sql): no golden case under cmd/rewind/testdata/cli/%s*", name, f.Name, dash)
			}
			if !strings.Contains(string(ref), "`"+name+"(") {
				t.Errorf("macro %s (%s.sql): docs/sql.md does not name it", name, f.Name)
			}
		}
	}
}

// Helpers whose golden lives in another analysis's case.
func coveredBy(name string) bool {
	switch name {
	case "experiment_window", "tag_hash": // cmd/rewind/testdata/cli/windows, blast-radius
		return true
	case "omission_windows", "omission_requests", "omission_dropped", "omission_backfill": // cmd/rewind/testdata/cli/omission
		return true
	case "hypothesis_sweep_by", "stop_damage_by": // cmd/rewind/testdata/cli/falsification-by (--tolerance, stop-damage)
		return true
	case "changes_series", "changes_series_by": // cmd/rewind/testdata/cli/changes (rewind sql, --by)
		return true
	}
	return false
}

// TestUsesDeclared: a file that calls another file's macro names that file
// on its "-- Uses:" line, names only files that exist, and comes after them
// in install order (so Install needs no retries and a cycle is caught).
func TestUsesDeclared(t *testing.T) {
	files := Files()
	defined := map[string]string{} // macro -> file
	pos := map[string]int{}
	for i, f := range files {
		pos[f.Name] = i
		for _, m := range macroRE.FindAllStringSubmatch(f.SQL, -1) {
			defined[m[1]] = f.Name
		}
	}
	for _, f := range files {
		var code []string
		for _, line := range strings.Split(f.SQL, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "--") {
				code = append(code, line)
			}
		}
		body := strings.Join(code, "\n")
		for macro, file := range defined {
			if file == f.Name || !regexp.MustCompile(`\b`+macro+`\s*\(`).MatchString(body) {
				continue
			}
			if !slices.Contains(f.Uses, file) {
				t.Errorf("%s.sql calls %s of %s.sql: add %s to its -- Uses: line", f.Name, macro, file, file)
			}
		}
		for _, u := range f.Uses {
			p, ok := pos[u]
			switch {
			case !ok:
				t.Errorf("%s.sql uses %s: no such file", f.Name, u)
			case p >= pos[f.Name]:
				t.Errorf("%s.sql uses %s, installed after it (a cycle?)", f.Name, u)
			}
		}
	}
}

var tableMacroRE = regexp.MustCompile(`(?ms)^CREATE OR REPLACE MACRO ([a-z][a-z_0-9]*)\([^;]*?\) AS TABLE`)

// rowMacros return rows of a table, whose columns schema.sql documents.
var rowMacros = map[string]bool{"experiment_window": true}

// TestUnitsLines: every public table macro has "-- Units:" entries in its
// file's header, each a column=unit with a unit (NoUnit for none) and no
// column twice, and every such line is read (none below the header) and
// names a macro of its own file. That they name exactly the macro's output
// columns is analyze's TestUnitsMatchDescribe (this package has no database).
func TestUnitsLines(t *testing.T) {
	for _, f := range Files() {
		lines := unitsLines(f.SQL)
		read := 0
		for _, us := range lines {
			read += len(us)
		}
		written := 0
		for _, line := range strings.Split(f.SQL, "\n") {
			if rest, ok := strings.CutPrefix(line, "-- Units:"); ok {
				_, entries, _ := strings.Cut(rest, ":")
				written += len(strings.Fields(entries))
			}
		}
		if read != written {
			t.Errorf("%s.sql: %d unit entries written, %d read: a \"-- Units:\" line below the header?", f.Name, written, read)
		}
		public := map[string]bool{}
		for _, m := range tableMacroRE.FindAllStringSubmatch(f.SQL, -1) {
			public[m[1]] = true
			if _, ok := lines[m[1]]; !ok && !rowMacros[m[1]] {
				t.Errorf("%s.sql: macro %s has no \"-- Units: %s:\" line", f.Name, m[1], m[1])
			}
		}
		for macro, us := range lines {
			if !public[macro] {
				t.Errorf("%s.sql: \"-- Units: %s:\" names no public table macro of the file", f.Name, macro)
			}
			seen := map[string]bool{}
			for _, u := range us {
				if u.Column == "" || u.Unit == "" {
					t.Errorf("%s.sql: %s: entry %q=%q: want column=unit (%s for none)", f.Name, macro, u.Column, u.Unit, NoUnit)
				}
				if seen[u.Column] {
					t.Errorf("%s.sql: %s: column %s twice", f.Name, macro, u.Column)
				}
				seen[u.Column] = true
			}
		}
	}
}

func TestUnits(t *testing.T) {
	got := Units("peaks")
	want := map[string]string{"resolution_ms": "ms", "peak": "requests", "peak_at_ms": "ms", "total": "requests",
		"sliding_peak": "requests", "sliding_at_ms": "ms"}
	if !maps.Equal(got, want) {
		t.Errorf("Units(peaks) = %v, want %v", got, want)
	}
	if u := Units("no_such_macro"); len(u) != 0 {
		t.Errorf("Units(no_such_macro) = %v, want none", u)
	}
}

// Each stand-in is its schema.sql table, made TEMP, with every column.
func TestStandIns(t *testing.T) {
	for _, table := range StandIns {
		got := StandIn(table)
		if !strings.HasPrefix(got, "CREATE TEMP TABLE IF NOT EXISTS "+table+" (") || !strings.HasSuffix(got, "\n);") {
			t.Fatalf("StandIn(%s) = %q", table, got)
		}
		body := strings.TrimSuffix(strings.TrimPrefix(got, "CREATE TEMP TABLE IF NOT EXISTS "+table+" ("), ");")
		if !strings.Contains(Schema, "CREATE TABLE IF NOT EXISTS "+table+" ("+body+");") {
			t.Errorf("StandIn(%s) is not schema.sql's table:\n%s", table, got)
		}
	}
	if got := StandIn("no_such_table"); got != "" {
		t.Errorf("StandIn(no_such_table) = %q", got)
	}
}

// AddedColumns reads every ALTER TABLE … ADD COLUMN line of schema.sql.
func TestAddedColumns(t *testing.T) {
	got := AddedColumns()
	if n := strings.Count(Schema, "ADD COLUMN IF NOT EXISTS"); len(got) != n || n == 0 {
		t.Fatalf("AddedColumns() has %d, schema.sql %d ALTER lines", len(got), n)
	}
	if last := got[len(got)-1]; last != (AddedColumn{"requests", "run_pos", "BIGINT"}) {
		t.Errorf("last added column %+v", last)
	}
}

// TestNeeds: a query needs the files whose macros it names as words (in any
// case), with the files those use, in install order; none for a query that
// names none or for a library file's own text.
func TestNeeds(t *testing.T) {
	names := func(fs []File) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Name)
		}
		return out
	}
	pos := map[string]int{}
	for i, f := range Files() {
		pos[f.Name] = i
	}
	for _, f := range Files() {
		if got := Needs(f.SQL); got != nil {
			t.Errorf("%s.sql's own text needs %v", f.Name, names(got))
		}
		for _, m := range macroRE.FindAllStringSubmatch(f.SQL, -1) {
			got := names(Needs("SELECT * FROM " + strings.ToUpper(m[1]) + "('x')"))
			if !slices.Contains(got, f.Name) {
				t.Errorf("a call of %s needs %v, not %s", m[1], got, f.Name)
			}
			for _, u := range f.Uses {
				if !slices.Contains(got, u) {
					t.Errorf("a call of %s needs %v, not %s (%s.sql uses it)", m[1], got, u, f.Name)
				}
			}
			if !slices.IsSortedFunc(got, func(a, b string) int { return pos[a] - pos[b] }) {
				t.Errorf("a call of %s needs %v: not in install order", m[1], got)
			}
		}
	}
	for _, q := range []string{"SELECT 1", "SELECT * FROM xpeaks('x')", "SELECT peaks_x FROM t", "SELECT 'peaks2'"} {
		if got := Needs(q); got != nil {
			t.Errorf("%q needs %v", q, names(got))
		}
	}
	if got := names(Needs("SELECT * FROM falsification('a') JOIN peaks('b') USING (run)")); !slices.Equal(got, []string{"peaks", "windows", "falsification"}) && !slices.Equal(got, []string{"windows", "falsification", "peaks"}) && !slices.Equal(got, []string{"windows", "peaks", "falsification"}) {
		t.Errorf("falsification and peaks need %v", got)
	}
}
