package probes

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./sim/probes -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestGoldenTables(t *testing.T) {
	for _, tc := range []struct {
		file  string
		sweep bool
	}{{"settings.golden", false}, {"sweep.golden", true}} {
		t.Run(tc.file, func(t *testing.T) {
			rep, err := Simulate(Config{Scenario: Default(), Sweep: tc.sweep}, nil)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.file, rep.Text())
		})
	}
}

// The committed fixture is the seed scenario; the built-in default must not
// drift from it.
func TestFixtureIsDefault(t *testing.T) {
	got, err := LoadScenario(filepath.Join("..", "..", "fixtures", "probes", "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Default(), got); diff != "" {
		t.Errorf("fixtures/probes/scenario.json vs Default() (-want +got):\n%s", diff)
	}
}
