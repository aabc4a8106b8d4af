package probes

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/internal/golden"
)

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
			golden.Check(t, filepath.Join("testdata", tc.file), []byte(rep.Text()))
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
