package param

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestSayNamesParameters(t *testing.T) {
	inner := Errorf("good", "{good} %q: bad", "x{max}")
	err := fmt.Errorf("wrapped: %w", Errorf("window", "{window} 1s: see {max}; %w", inner))
	flag := func(p string) string { return "--" + p }
	if got, want := err.Error(), `wrapped: window 1s: see max; good "x{max}": bad`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := Say(err, flag), `wrapped: --window 1s: see --max; --good "x{max}": bad`; got != want {
		t.Errorf("Say = %q, want %q", got, want)
	}
	var pe *Error
	if !errors.As(err, &pe) || pe.Param != "window" || !slices.Equal(pe.Params(), []string{"window", "max"}) {
		t.Errorf("param = %+v", pe)
	}
	if !errors.Is(err, inner) {
		t.Error("the wrapped Error is not in the chain")
	}
}

// flagWord is a CLI flag written in a library string.
var flagWord = regexp.MustCompile(`--[a-z][a-z0-9-]*`)

// otherTools are the phrases of a library string that name another tool's
// flags (a refusal says how k6 or Vegeta writes what rewind reads): only
// rewind's own flags are the CLI's to name.
var otherTools = []string{
	"k6 run --out", "k6 run --summary-export", "(or --out csv=FILE)",
	"vegeta encode --to", "artillery run --output", "nighthawk_client --output-format", "locust --csv",
}

// The library packages name their parameters in their own words ({window}
// in a param format), never a CLI flag: cmd/rewind says them as its flags.
// Every string literal of their code is read, so an error, a note or a
// report's hint that spells a flag fails here. report/pagetest drives a
// browser by its flags and is left out.
func TestNoFlagsInLibraryText(t *testing.T) {
	for _, dir := range []string{"analyze", "replay", "report", "hypothesis", "notebook", "store", "ingest",
		"ingest/record", "ingest/format/*", "ingest/formattest"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("no Go files in %s", dir)
		}
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				checkNoFlags(t, f)
			}
		}
	}
}

// checkNoFlags fails on each string literal of file f that names a flag.
func checkNoFlags(t *testing.T, f string) {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(file, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
		}
		for _, o := range otherTools {
			s = strings.ReplaceAll(s, o, "")
		}
		for _, flag := range flagWord.FindAllString(s, -1) {
			t.Errorf("%s names the flag %s: write the parameter as {%s}", fset.Position(lit.Pos()), flag, flag[2:])
		}
		return true
	})
}
