package param

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// flagWords is a CLI flag spelled in a Go string of a message.
var flagWords = regexp.MustCompile(`"[^"\n]*--[a-z][^"\n]*"`)

// The library packages name their parameters in their own words, never a
// CLI flag: cmd/rewind adds the "--". hypothesis holds no flag in any
// string; analyze and replay none in an error (their notes still do).
func TestNoFlagsInLibraryErrors(t *testing.T) {
	errorLine := regexp.MustCompile(`Errorf\(|errors\.New\(|\bbad\(`)
	for dir, all := range map[string]bool{"hypothesis": true, "analyze": false, "replay": false} {
		files, _ := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("no Go files in %s", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(b), "\n") {
				code, _, _ := strings.Cut(line, "//")
				if flagWords.MatchString(code) && (all || errorLine.MatchString(code)) {
					t.Errorf("%s:%d names a flag: %s", f, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}
