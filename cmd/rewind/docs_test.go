package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// mdLink matches an inline Markdown link or image: [text](target "title").
var mdLink = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// TestREADMELinks checks every relative link of every .md in the repository:
// the file it names exists, and a #fragment names a heading of that file
// (GitHub's anchors). Moving a section from the README to docs/ breaks the
// links to it; this says which.
func TestREADMELinks(t *testing.T) {
	root, _ := filepath.Abs("../..")
	anchors := map[string]map[string]bool{}
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		md, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, target := range linkTargets(string(md)) {
			n++
			if msg := checkLink(path, target, anchors); msg != "" {
				t.Errorf("%s: link %q: %s", rel, target, msg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 30 {
		t.Fatalf("found %d relative links in the repository's .md files", n)
	}
}

// linkTargets returns the relative link targets of md outside fenced code.
func linkTargets(md string) []string {
	var targets []string
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			target := strings.Trim(m[1], "<>")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			targets = append(targets, target)
		}
	}
	return targets
}

var codeSpan = regexp.MustCompile("`[^`]*`")

// checkLink says what is wrong with target, a link in the file at from, or "".
func checkLink(from, target string, anchors map[string]map[string]bool) string {
	file, frag, _ := strings.Cut(target, "#")
	path := from
	if file != "" {
		path = filepath.Join(filepath.Dir(from), filepath.FromSlash(file))
	}
	if _, err := os.Stat(path); err != nil {
		return "no such file"
	}
	if frag == "" || !strings.HasSuffix(path, ".md") {
		return ""
	}
	if anchors[path] == nil {
		md, err := os.ReadFile(path)
		if err != nil {
			return err.Error()
		}
		anchors[path] = headingAnchors(string(md))
	}
	if !anchors[path][frag] {
		return "no heading with anchor #" + frag + " in " + filepath.Base(path)
	}
	return ""
}

// headingAnchors returns the anchors GitHub gives md's headings: lower case,
// punctuation but - and _ dropped, spaces as -, a repeat suffixed -1, -2, ….
func headingAnchors(md string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			out[a+"-"+strconv.Itoa(k)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestREADMENamesEveryAnalysis: the manual's analyze section lists every
// analysis `rewind analyze` runs, each as a "rewind analyze NAME" synopsis.
func TestREADMENamesEveryAnalysis(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range analyses.subs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !strings.Contains(string(readme), "rewind analyze "+name+" ") && !strings.Contains(string(readme), "rewind analyze "+name+"\n") {
			t.Errorf("README.md does not show `rewind analyze %s`", name)
		}
	}
}
