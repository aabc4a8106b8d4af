package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// libraryParams finds the parameters the library packages name: {name} in
// a param format, the first argument of param.Errorf, Param: of a param.Arg.
var libraryParams = regexp.MustCompile(`\{([a-z][a-z0-9-]*)\}|param\.Errorf\("([a-z][a-z0-9-]*)"|Param: "([a-z][a-z0-9-]*)"`)

// Every parameter a library error names has its flag, so no message
// reaches the user in library words.
func TestFlagsCoverParams(t *testing.T) {
	seen := 0
	for _, dir := range []string{"hypothesis", "analyze", "replay", "store", "ingest"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(b), "\n") {
				if !strings.Contains(line, "param.") && !strings.Contains(line, "Param: ") {
					continue
				}
				for _, m := range libraryParams.FindAllStringSubmatch(line, -1) {
					p := m[1] + m[2] + m[3]
					seen++
					if _, ok := flags[p]; !ok {
						t.Errorf("%s: parameter %q has no flag in params.go", f, p)
					}
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("no parameters found: the scan is broken")
	}
}
