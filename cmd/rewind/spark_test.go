package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
)

// With no Spark Connect server at the URL, an analysis on Spark fails with
// one clear line, exit 1 and nothing on stdout; an analysis without reduce
// steps is refused by name; --spark without --dataset is a usage error.
func TestSparkFailures(t *testing.T) {
	// A port nothing listens on: bind one, then close it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "sc://" + l.Addr().String()
	l.Close()
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"analyze", "blast-radius", "--spark", down, "--dataset", t.TempDir(), "--format", "json"}, 1, "no Spark Connect server answers"},
		{[]string{"analyze", "changes", "--spark", down, "--dataset", t.TempDir()}, 1, "changes does not run on Spark yet"},
		{[]string{"analyze", "peaks", "--sliding", "--spark", down, "--dataset", t.TempDir()}, 1, "no Spark Connect server answers"},
		{[]string{"analyze", "blast-radius", "--spark", down}, 2, "give --dataset PATH too"},
		{[]string{"report", "--spark", down, "--dataset", t.TempDir()}, 1, "no Spark Connect server answers"},
		{[]string{"report", "--spark", down}, 2, "give --dataset PATH too"},
		{[]string{"report", "--spark", down, "--db", "x.duckdb"}, 2, "give --dataset PATH instead of --db"},
		{[]string{"replay", "--spark", down, "--dataset", t.TempDir()}, 1, "replay does not run on Spark yet"},
		{[]string{"analyze", "falsification", "--by", "outcome", "--spark", down, "--dataset", t.TempDir()}, 1, "no Spark Connect server answers"},
		{[]string{"analyze", "blast-radius", "--spark", "http://127.0.0.1:15002", "--dataset", t.TempDir()}, 1, "want a Spark Connect URL"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), c.args, nil, &out, &errb)
		if code != c.code || out.Len() != 0 || !strings.Contains(errb.String(), c.msg) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, no stdout, %q", c.args, code, out.String(), errb.String(), c.code, c.msg)
		}
		if strings.Count(strings.TrimSpace(errb.String()), "\n") > 2 {
			t.Errorf("%v: stderr is more than a few lines:\n%s", c.args, errb.String())
		}
	}
}
