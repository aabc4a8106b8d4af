//go:build duckdb_arrow

package duckarrow

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Built without the tag, the package fails on one error that names it
// (it used to fail on duckdb.Arrow, undefined, with no word of the tag).
func TestBuildWithoutTagNamesIt(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command(gobin, "build", "-o", os.DevNull, ".")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("built without the tag")
	}
	if !strings.Contains(string(out), "rewind_needs_the_build_tag__go_build_tags_duckdb_arrow") || strings.Contains(string(out), "duckdb.Arrow") {
		t.Errorf("output:\n%s", out)
	}
}
