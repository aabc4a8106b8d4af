package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// An output flag never clobbers data: it refuses the database, an input of
// the command, and any existing file that is not an earlier output of the
// same kind (--force replaces such a file; nothing replaces the database or
// an input). "-" is stdout. Files are written whole or not at all (a temp
// file renamed into place), so a failing command leaves the old output.

// outputKind tells an earlier output of rewind's from any other file, by its
// first bytes.
type outputKind struct {
	what string // "a page rewind wrote"
	ours func(head []byte) bool
}

// htmlPage is a page of rewind report or rewind notebook: both start with
// the same doctype and generator line.
var htmlPage = outputKind{"an HTML page rewind wrote", func(h []byte) bool {
	return bytes.HasPrefix(h, []byte("<!DOCTYPE html>")) && bytes.Contains(h, []byte(`<meta name="generator" content="rewind">`))
}}

// notebookMarker opens every markdown file rewind notebook writes with -o
// (invisible when the markdown is rendered); stdout gets none.
const notebookMarker = "<!-- Written by rewind notebook: running it again replaces this file. -->\n"

var notebookMarkdown = outputKind{"a markdown file rewind notebook wrote", func(h []byte) bool {
	return bytes.HasPrefix(h, []byte(notebookMarker))
}}

// guarded is a file no output may replace, and what it is, for the error.
type guarded struct{ path, what string }

// dbGuards are the database's files.
func dbGuards(db string) []guarded {
	return []guarded{{db, "the database"}, {db + ".wal", "the database's write-ahead log"}}
}

// checkOutput refuses to write the output of flag to out when out is one of
// protected (the database, the inputs) or an existing file that kind does
// not recognise, unless force.
func checkOutput(fs *pflag.FlagSet, flag, out string, kind outputKind, force bool, protected ...guarded) error {
	name := "--" + flag
	if f := fs.Lookup(flag); f != nil && f.Shorthand != "" {
		name = "-" + f.Shorthand
	}
	for _, p := range protected {
		if samePath(out, p.path) {
			return hinted{fmt.Errorf("%s %s is %s: writing the output there would destroy it", name, out, p.what),
				rerun(fs, flag, otherName(out))}
		}
	}
	f, err := os.Open(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", name, out, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return fmt.Errorf("%s %s is a directory: want a file name", name, out)
	}
	head := make([]byte, 1024)
	n, _ := io.ReadFull(f, head)
	if force || kind.ours(head[:n]) {
		return nil
	}
	return hinted{fmt.Errorf("%s %s exists and is not %s: not replacing it", name, out, kind.what),
		rerun(fs, "force", "")}
}

// samePath reports whether a and b name the same file: the same existing
// file (links included), or the same path.
func samePath(a, b string) bool {
	fa, ea := os.Stat(a)
	fb, eb := os.Stat(b)
	if ea == nil && eb == nil {
		return os.SameFile(fa, fb)
	}
	aa, err1 := filepath.Abs(a)
	ab, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == ab
}

// otherName suggests an output name beside out that is not out.
func otherName(out string) string {
	ext := filepath.Ext(out)
	switch ext {
	case ".html", ".md":
	default:
		ext = ".html"
	}
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".out" + ext
}

// writeOutput writes a whole output to path through a temp file beside it,
// renamed into place once complete.
func writeOutput(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is there
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// rerun is the command line that was given, with flag set to value (value
// "" for a boolean flag), for a Try line.
func rerun(fs *pflag.FlagSet, flag, value string) string {
	if fs == nil {
		return ""
	}
	parts := []string{"rewind", fs.Name()}
	fs.Visit(func(f *pflag.Flag) {
		sv, repeatable := f.Value.(pflag.SliceValue)
		if f.Name == flag && !repeatable { // a repeatable flag keeps its values: the new one is added
			return
		}
		if repeatable {
			for _, v := range sv.GetSlice() {
				parts = append(parts, "--"+f.Name, shellQuote(v))
			}
			return
		}
		if f.Value.Type() == "bool" {
			if f.Value.String() == "true" {
				parts = append(parts, "--"+f.Name)
			}
			return
		}
		parts = append(parts, "--"+f.Name, shellQuote(f.Value.String()))
	})
	parts = append(parts, "--"+flag)
	if value != "" {
		parts = append(parts, shellQuote(value))
	}
	for _, a := range fs.Args() {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:=,@%+-]+$`)

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shortDuration prints 1m rather than 1m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// tablesToStderr is e with stdout sent to stderr: when a simulator's log
// goes to stdout (--out -), its tables go to stderr, so a pipe gets the log
// alone.
func tablesToStderr(e *env) *env {
	c := *e
	c.stdout, c.stdoutTTY = e.stderr, e.stderrTTY
	return &c
}
