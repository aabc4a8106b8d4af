package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNotebookDeterministic renders the example notebook twice, to HTML (the
// format with charts and inlined data) and to markdown, and wants the same
// bytes each time.
func TestNotebookDeterministic(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "nb.duckdb")
	nb := filepath.Join(root, "fixtures", "notebooks", "chaos.md")
	mustRewind(t, "ingest", "--db", db, filepath.Join(root, "fixtures", "chaos", "gunluk.json"))
	for _, ext := range []string{".html", ".md"} {
		var outs []string
		for i := range 2 {
			out := filepath.Join(dir, "run"+string(rune('a'+i))+ext)
			mustRewind(t, "notebook", "--db", db, nb, "-o", out)
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, string(b))
		}
		if !strings.Contains(outs[0], "gunluk") {
			t.Fatalf("%s output does not look like the chaos notebook", ext)
		}
		if diff := cmp.Diff(outs[0], outs[1]); diff != "" {
			t.Errorf("%s: second render differs (-first +second):\n%s", ext, diff)
		}
	}
}

// mustRewind runs one command in-process and fails the test unless it exits 0.
func mustRewind(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(context.Background(), args, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("rewind %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
	}
	return out.String()
}
