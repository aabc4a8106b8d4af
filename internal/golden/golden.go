// Package golden compares what a test produced with a file under testdata
// (a golden file), and rewrites the file instead when the test binary runs
// with -update. Only tests import it: the flag is registered in their
// binaries alone.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ (review the diff before committing)")

// Updating reports whether the test binary runs with -update.
func Updating() bool { return *update }

// Check fails t when got differs from the file at path, showing the diff;
// with -update it writes got to path instead (creating its folder). A
// missing file fails with how to create it.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it; review the diff)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}
