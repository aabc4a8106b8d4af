package queries

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var macroRE = regexp.MustCompile(`(?m)^CREATE OR REPLACE MACRO ([a-z_0-9]+)\(`)

// Every file opens with its header, and every public macro has a golden
// CLI case (one name per analysis: stop_damage ↔ testdata/cli/stop-damage)
// and is named in the README.
func TestLibraryIsDocumented(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
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
			if !strings.Contains(string(readme), name) && !strings.Contains(string(readme), dash) {
				t.Errorf("macro %s (%s.sql): the README does not name it", name, f.Name)
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
