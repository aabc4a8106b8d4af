package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// libraryParams finds the parameters the library packages name: {name} in
// a string (a param format, an ingest fieldErr format), the first argument
// of param.Errorf, Param: of a param.Arg, or the parameter of ingest's
// hinted.
var libraryParams = regexp.MustCompile(`(?:^|[^%])\{([a-z][a-z0-9-]*)\}|param\.Errorf\("([a-z][a-z0-9-]*)"|Param: "([a-z][a-z0-9-]*)"|"([a-z][a-z0-9-]*)", "[^"]*"\)$`)

// stringLits finds Go string literals, interpreted and raw.
var stringLits = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`")

// Every parameter a library error, note or hint names has its flag, so no
// message reaches the user in library words.
func TestFlagsCoverParams(t *testing.T) {
	seen := 0
	for _, dir := range []string{"hypothesis", "analyze", "replay", "store", "ingest", "report", "notebook"} {
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
				if strings.HasPrefix(strings.TrimSpace(line), "//") {
					continue
				}
				text := strings.Join(stringLits.FindAllString(line, -1), " ")
				if strings.Contains(line, "param.") || strings.Contains(line, "Param: ") || strings.Contains(line, "hinted(") {
					text = line
				}
				for _, m := range libraryParams.FindAllStringSubmatch(text, -1) {
					p := m[1] + m[2] + m[3] + m[4]
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
