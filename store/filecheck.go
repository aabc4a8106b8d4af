package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// DuckDB acts on a database name before any setting of ours applies: a
// "prefix:" (md:, ducklake:, postgres:, sqlite:) hands the open to an
// extension, and a file of another database's format (SQLite) makes DuckDB
// install and load the extension that reads it, over the network. So a name
// is checked here, before DuckDB sees it: no prefix, and an existing file
// must be a DuckDB database.

// prefixRE is what DuckDB reads as an extension's prefix: a name of two or
// more letters, digits or underscores, then a colon.
var prefixRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]+:`)

// duckMagic is at byte 8 of every DuckDB database file (after the checksum
// of the main header).
var duckMagic = []byte("DUCK")

// magics name the files a rewind database is most often mistaken for.
var magics = []struct {
	prefix []byte
	what   string
}{
	{[]byte("SQLite format 3\x00"), "a SQLite file"},
	{[]byte("PAR1"), "a Parquet file"},
	{[]byte("\x1f\x8b"), "a gzip file"},
	{[]byte("\x28\xb5\x2f\xfd"), "a zstd file"},
	{[]byte("ARROW1"), "an Arrow IPC file"},
	{[]byte("PK\x03\x04"), "a zip file"},
}

// checkName refuses a database name that DuckDB would hand to an extension.
func checkName(path string) error {
	if m := prefixRE.FindString(path); m != "" {
		return fmt.Errorf("%s: not a rewind database (%q names a DuckDB extension's storage); for a file of that name, write ./%s", path, m, path)
	}
	return nil
}

// checkFile refuses an existing file that is not a DuckDB database.
func checkFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: not a rewind database (a folder)", path)
	}
	head := make([]byte, 16)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("database %s: %w", path, err)
	}
	head = head[:n]
	if n >= 12 && bytes.Equal(head[8:12], duckMagic) {
		return nil
	}
	what := "not a DuckDB file"
	if n == 0 {
		what = "an empty file"
	}
	for _, m := range magics {
		if bytes.HasPrefix(head, m.prefix) {
			what = m.what
			break
		}
	}
	return fmt.Errorf("%s: not a rewind database (%s)", path, what)
}

// openRaw opens path read-only with the configuration every open starts
// from, skipping checkFile: what DuckDB does with a file rewind's check
// would have refused (TestOpenFetchesNothing).
func openRaw(path string) error {
	c, err := duckdb.NewConnector(path+"?"+openConfig+"&access_mode=READ_ONLY", nil)
	if err != nil {
		return err
	}
	return c.Close()
}
