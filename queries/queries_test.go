package queries

import (
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
