package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/sqlite.db is a real SQLite 3 database (one empty table), written
// by Python's sqlite3 module: the file that made a sandboxed open install
// and load DuckDB's sqlite_scanner extension over the network.

func TestOpenRefusesOtherDatabases(t *testing.T) {
	dir := t.TempDir()
	sqlite, err := os.ReadFile("testdata/sqlite.db")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		path string
		mode Mode
		want string
	}{
		{write("x.duckdb", sqlite), Read, "/x.duckdb: not a rewind database (a SQLite file)"},
		{filepath.Join(dir, "x.duckdb"), Write, "not a rewind database (a SQLite file)"},
		{write("p.duckdb", []byte("PAR1\x15\x04")), Read, "not a rewind database (a Parquet file)"},
		{write("t.duckdb", []byte("hello, world, not a database")), Read, "not a rewind database (not a DuckDB file)"},
		{write("e.duckdb", nil), Read, "not a rewind database (an empty file)"},
		{filepath.Join(dir, "e.duckdb"), Write, "not a rewind database (an empty file)"},
		{"md:x", Read, `md:x: not a rewind database ("md:" names a DuckDB extension's storage); for a file of that name, write ./md:x`},
		{"ducklake:x", Write, `"ducklake:" names a DuckDB extension's storage`},
		{"postgres:dbname=x", Read, `"postgres:" names`},
		{"sqlite:x.db", Write, `"sqlite:" names`},
	}
	for _, c := range cases {
		db, err := Open(context.Background(), c.path, Options{Mode: c.mode})
		if err == nil {
			db.Close()
			t.Errorf("Open(%s, %v): no error", c.path, c.mode)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%s, %v):\n got %v\nwant %s", c.path, c.mode, err, c.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "x.duckdb")); string(b) != string(sqlite) {
		t.Error("the SQLite file changed")
	}
}

// TestOpenFetchesNothing opens a SQLite file the way DuckDB is told to open
// it, past rewind's own check of the file's magic, in a network namespace of
// its own with an empty home: the configuration the database is created
// with must refuse the extension, so no connection is attempted (strace
// counts them) and no ~/.duckdb folder appears.
func TestOpenFetchesNothing(t *testing.T) {
	if os.Getenv("REWIND_OPEN_RAW") != "" {
		err := openRaw(os.Getenv("REWIND_OPEN_RAW"))
		if err == nil {
			t.Fatal("DuckDB opened a SQLite file")
		}
		t.Log(err)
		return
	}
	for _, tool := range []string{"unshare", "strace"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s: %v (.ci/run installs it)", tool, err)
			}
			t.Skipf("%s: %v", tool, err)
		}
	}
	home := t.TempDir()
	trace := filepath.Join(t.TempDir(), "connect.log")
	sqlite, _ := filepath.Abs("testdata/sqlite.db")
	cmd := exec.Command("unshare", "-n", "strace", "-f", "-e", "trace=connect", "-o", trace,
		os.Args[0], "-test.run", "^TestOpenFetchesNothing$", "-test.v")
	cmd.Env = append(os.Environ(), "HOME="+home, "REWIND_OPEN_RAW="+sqlite)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "Operation not permitted") {
			t.Skipf("no network namespace for this user: %s", out)
		}
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("the child did not pass:\n%s", out)
	}
	log, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(log), "\n") {
		if strings.Contains(line, "AF_INET") {
			t.Errorf("a connection was attempted: %s", line)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".duckdb")); err == nil {
		t.Error("~/.duckdb was created")
	}
}

// A DuckDB file that does not open is reported with DuckDB's reason, not
// the Go driver's own words.
func TestOpenCorruptNamesNoDriver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "corrupt.duckdb")
	b := make([]byte, 8192)
	copy(b[8:], "DUCK")
	for i := 12; i < len(b); i++ {
		b[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path, Options{})
	if err == nil {
		t.Fatal("a corrupt file opened")
	}
	if strings.Contains(err.Error(), "database/sql/driver") || !strings.HasPrefix(err.Error(), "open "+path+": ") {
		t.Errorf("got %v", err)
	}
	t.Log(err)
}
