package ingest

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/rewind-dev/rewind/"

// The layout's rules (issue 38): a format package imports nothing of
// rewind's but ingest/record, internal/param and its own subpackages, so no
// format imports another; and the pipeline reaches a format only through
// the registry, the one file of package ingest that imports one.
func TestFormatsStandAlone(t *testing.T) {
	dirs, _ := filepath.Glob("format/*")
	if len(dirs) == 0 {
		t.Fatal("no format packages under format/")
	}
	for _, dir := range dirs {
		own := module + "ingest/" + dir
		_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			for _, imp := range imports(t, path) {
				switch {
				case !strings.HasPrefix(imp, module), imp == module+"ingest/record", imp == module+"internal/param",
					imp == own, strings.HasPrefix(imp, own+"/"):
				default:
					t.Errorf("%s imports %s: a format imports only ingest/record, internal/param and its own packages", path, imp)
				}
			}
			return nil
		})
	}
	files, _ := filepath.Glob("*.go")
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") || path == "registry.go" {
			continue
		}
		for _, imp := range imports(t, path) {
			if strings.HasPrefix(imp, module+"ingest/format/") {
				t.Errorf("%s imports %s: the pipeline reaches a format only through the registry (registry.go)", path, imp)
			}
		}
	}
}

func imports(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range f.Imports {
		p, _ := strconv.Unquote(s.Path.Value)
		out = append(out, p)
	}
	return out
}
