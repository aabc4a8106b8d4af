package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestREADMEExamples runs every example of the manual (README.md) and of the
// documents beside it (docDirs) that shows a command with its output: a
// fenced block whose lines start with "$ rewind ". Each block runs in a fresh
// folder that sees the repository's fixtures/ and ingest/testdata/; what the
// commands print (stdout, then stderr) must be what the block shows.
func TestREADMEExamples(t *testing.T) {
	root, _ := filepath.Abs("../..")
	files := docFiles(t, root)
	total := 0
	dbs := map[string]string{} // --db file → the block that uses it
	for _, name := range files {
		md, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		blocks := exampleBlocks(string(md))
		if name == "README.md" && len(blocks) < 3 {
			t.Fatalf("found %d example blocks in README.md", len(blocks))
		}
		total += len(blocks)
		for i, b := range blocks {
			ownDB(t, fmt.Sprintf("%s block %d", name, i+1), b, dbs)
			t.Run(name+"/"+strings.Fields(b[0].cmd)[1]+"#"+string(rune('a'+i)), func(t *testing.T) {
				runExampleBlock(t, root, b)
			})
		}
	}
	if total < 15 {
		t.Fatalf("found %d example blocks in %d documents", total, len(files))
	}
}

// docFiles lists the documents whose examples TestREADMEExamples runs, as
// paths relative to root: the README, the contributor notes, the
// benchmarks' README and every .md under docs/.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md", "CONTRIBUTING.md", "bench/README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(root, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// ownDB checks that every command of block b that opens a database names it
// with --db (or a dataset with --dataset), one file per block, so that a reader can run the walk-throughs
// one after another in one folder (issue 28).
func ownDB(t *testing.T, block string, b []example, dbs map[string]string) {
	t.Helper()
	for _, ex := range b {
		args, _ := shellWords(ex.cmd)
		if len(args) < 2 || args[1] == "sim" || args[1] == "version" || args[1] == "completion" ||
			(len(args) > 2 && args[1] == "analyze" && args[2] == "bounds") {
			continue
		}
		db := ""
		for i, a := range args {
			if (a == "--db" || a == "--dataset") && i+1 < len(args) {
				db = args[i+1] // a dataset is the store of its block too
			}
		}
		switch {
		case db == "":
			t.Errorf("%s: $ %s: no --db of its own", block, ex.cmd)
		case dbs[db] != "" && dbs[db] != block:
			t.Errorf("%s: $ %s: --db %s is %s's too", block, ex.cmd, db, dbs[db])
		default:
			dbs[db] = block
		}
	}
}

func runExampleBlock(t *testing.T, root string, b []example) {
	dir := t.TempDir()
	for _, d := range []string{"fixtures", "ingest"} {
		if err := os.Symlink(filepath.Join(root, d), filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, ex := range b {
		args, err := shellWords(ex.cmd)
		if err != nil {
			t.Fatalf("%s: %v", ex.cmd, err)
		}
		var out, errb bytes.Buffer
		run(context.Background(), args[1:], nil, &out, &errb)
		got := out.String() + errb.String()
		if matchElided(ex.want, got) {
			continue
		}
		if diff := cmp.Diff(ex.want, got); diff != "" {
			t.Errorf("$ %s (-doc +got):\n%s", ex.cmd, diff)
		}
	}
}

type example struct{ cmd, want string }

func exampleBlocks(md string) [][]example {
	var blocks [][]example
	var cur []example
	in := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			if in && len(cur) > 0 {
				blocks = append(blocks, cur)
			}
			in, cur = !in, nil
			continue
		}
		if !in {
			continue
		}
		if cmd, ok := strings.CutPrefix(line, "$ "); ok && strings.HasPrefix(cmd, "rewind ") {
			cur = append(cur, example{cmd: cmd})
			continue
		}
		if len(cur) > 0 {
			cur[len(cur)-1].want += line + "\n"
		}
	}
	return blocks
}

// shellWords splits a command line as a POSIX shell would, for the quoting
// the README uses: single and double quotes, no expansion.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, os.ErrInvalid
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// matchElided compares output with an example in which a line "..." stands
// for any number of lines.
func matchElided(want, got string) bool {
	w := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	g := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	var match func(i, j int) bool
	match = func(i, j int) bool {
		switch {
		case i == len(w):
			return j == len(g)
		case w[i] == "...":
			for k := j; k <= len(g); k++ {
				if match(i+1, k) {
					return true
				}
			}
			return false
		case j < len(g) && w[i] == g[j]:
			return match(i+1, j+1)
		}
		return false
	}
	return match(0, 0)
}
