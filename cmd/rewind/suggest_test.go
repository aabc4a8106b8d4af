package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestSuggest(t *testing.T) {
	names := []string{"analyze", "ingest", "report", "replay", "sql", "sim", "blast-radius", "falsification", "planned", "peaks"}
	cases := map[string]string{
		"analyse": "analyze", "falsificaton": "falsification", "blast_radius": "blast-radius", "plannd": "planned",
		"repot": "report", "BLAST_RADIUS": "blast-radius", "sqk": "sql", "xyz": "", "frobnicate": "", "speak": "peaks",
		"sin": "sim", "q": "",
	}
	for in, want := range cases {
		if got := suggest(in, names); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

// A bare rewind is a mistake: usage on stderr, exit 2; asked-for help goes
// to stdout with exit 0.
func TestBareCommandUsage(t *testing.T) {
	for _, c := range []struct {
		args         []string
		code         int
		stdout, errs bool
	}{{nil, exitUsage, false, true}, {[]string{"--help"}, exitOK, true, false}, {[]string{"help"}, exitOK, true, false},
		{[]string{"analyze"}, exitUsage, false, true}, {[]string{"analyze", "--help"}, exitOK, true, false}} {
		var out, errb bytes.Buffer
		code := run(context.Background(), c.args, nil, &out, &errb)
		if code != c.code || (out.Len() > 0) != c.stdout || (errb.Len() > 0) != c.errs {
			t.Errorf("rewind %s: exit %d, stdout %d bytes, stderr %q; want exit %d, stdout %v, stderr %v",
				strings.Join(c.args, " "), code, out.Len(), errb.String(), c.code, c.stdout, c.errs)
		}
	}
}

// No help text carries a control character (replay's once showed a NUL).
func TestHelpIsText(t *testing.T) {
	paths := [][]string{}
	for _, n := range commandNames() {
		paths = append(paths, []string{n})
	}
	for _, g := range []*group{analyses, sims} {
		for n := range g.subs {
			paths = append(paths, []string{g.cmd, n})
		}
	}
	for _, p := range paths {
		var out, errb bytes.Buffer
		run(context.Background(), append(p, "--help"), nil, &out, &errb)
		for _, r := range out.String() + errb.String() {
			if r < 0x20 && r != '\n' && r != '\t' {
				t.Errorf("rewind %s --help: control character %U", strings.Join(p, " "), r)
				break
			}
		}
	}
}
