package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/internal/holddb"
)

// chaosFile ingests the chaos fixture into a new database file, closes it
// and returns its path; params are stored with the experiment.
func chaosFile(t *testing.T, params map[string]string) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "rewind.duckdb")
	db, err := Open(ctx, path, Options{Mode: Write})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := ingest.Files(ctx, db, ingest.Options{Params: params}, []string{"../fixtures/chaos/gunluk.json"}); err != nil {
		t.Fatal(err)
	}
	return path
}

// readOnly opens path as rewind sql, notebook, analyze and report do.
func readOnly(t *testing.T, path string, o Options) *DB {
	t.Helper()
	db, err := Open(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// refused runs q on a sandboxed database and wants DuckDB's permission error.
func refused(t *testing.T, db *DB, q, want string) {
	t.Helper()
	_, err := db.Exec(q)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: got %v, want an error with %q", q, err, want)
	}
}

const fsDisabled = "file system operations are disabled by configuration"

// TestSandboxCopyOverDatabase: COPY ... TO the database file itself used to
// replace it. It is refused and the file keeps its bytes.
func TestSandboxCopyOverDatabase(t *testing.T) {
	path := chaosFile(t, nil)
	before := fileSum(t, path)
	db := readOnly(t, path, Options{})
	refused(t, db, `COPY (SELECT 1) TO '`+path+`'`, fsDisabled)
	refused(t, db, `COPY (SELECT 1) TO '`+path+`' (FORMAT parquet)`, fsDisabled)
	db.Close()
	if fileSum(t, path) != before {
		t.Errorf("the database file changed")
	}
}

// TestSandboxCopyToFile: COPY ... TO any other path, and EXPORT DATABASE,
// write nothing.
func TestSandboxCopyToFile(t *testing.T) {
	path := chaosFile(t, nil)
	out := filepath.Join(t.TempDir(), "out.csv")
	db := readOnly(t, path, Options{})
	refused(t, db, `COPY requests TO '`+out+`'`, fsDisabled)
	refused(t, db, `EXPORT DATABASE '`+filepath.Join(filepath.Dir(out), "export")+`'`, fsDisabled)
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: got %v, want no file", out, err)
	}
}

// TestSandboxAttach: ATTACH of another database READ_WRITE followed by a
// DELETE deleted its rows. The ATTACH is refused; the other file is intact.
func TestSandboxAttach(t *testing.T) {
	path := chaosFile(t, nil)
	other := filepath.Join(t.TempDir(), "other.duckdb")
	w, err := Open(context.Background(), other, Options{Mode: Write})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`CREATE TABLE keep AS SELECT range AS x FROM range(3)`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	before := fileSum(t, other)
	db := readOnly(t, path, Options{})
	refused(t, db, `ATTACH '`+other+`' AS o (READ_WRITE)`, fsDisabled)
	refused(t, db, `DELETE FROM o.keep`, "")
	refused(t, db, `ATTACH '`+filepath.Join(t.TempDir(), "new.duckdb")+`' AS n`, fsDisabled)
	db.Close()
	if fileSum(t, other) != before {
		t.Errorf("the other database changed")
	}
}

// TestSandboxReadFiles: read_text, read_csv, glob and the file-as-table
// shorthand cannot read files other than the database.
func TestSandboxReadFiles(t *testing.T) {
	path := chaosFile(t, nil)
	secret := filepath.Join(t.TempDir(), "secret.csv")
	if err := os.WriteFile(secret, []byte("a\n1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := readOnly(t, path, Options{})
	for _, q := range []string{
		`SELECT * FROM read_text('/etc/passwd')`,
		`SELECT * FROM read_csv('` + secret + `')`,
		`SELECT * FROM read_blob('` + secret + `')`,
		`SELECT * FROM glob('` + filepath.Dir(secret) + `/*')`,
	} {
		refused(t, db, q, fsDisabled)
	}
	refused(t, db, `SELECT * FROM '`+secret+`'`, fsDisabled)
}

// TestSandboxExtensions: INSTALL, LOAD and URL reads, which try to download,
// fail at once without touching the network or the extension directory.
func TestSandboxExtensions(t *testing.T) {
	db := readOnly(t, chaosFile(t, nil), Options{})
	refused(t, db, `INSTALL httpfs`, fsDisabled)
	refused(t, db, `LOAD httpfs`, "disabled")
	refused(t, db, `SELECT * FROM read_csv('https://example.com/x.csv')`, fsDisabled)
	refused(t, db, `SELECT * FROM 'https://example.com/x.parquet'`, fsDisabled)
	refused(t, db, `CREATE PERSISTENT SECRET (TYPE s3)`, "")
}

// TestSandboxLocked: no SET can undo the sandbox, or change the limits.
func TestSandboxLocked(t *testing.T) {
	db := readOnly(t, chaosFile(t, nil), Options{})
	for _, q := range []string{
		`SET enable_external_access = true`,
		`SET lock_configuration = false`,
		`SET autoinstall_known_extensions = true`,
		`SET memory_limit = '100GB'`,
		`SET temp_directory = '/'`,
		`RESET enable_external_access`,
	} {
		refused(t, db, q, "locked")
	}
}

// TestSandboxSpills: with a small memory limit, a read-only open spills to
// its temp directory (the sandbox allows it) and the query succeeds.
func TestSandboxSpills(t *testing.T) {
	tmp := filepath.Join(t.TempDir(), "spill")
	db := readOnly(t, chaosFile(t, nil), Options{MemoryLimit: "16MiB", TempDir: tmp})
	if _, err := db.Exec(`CREATE TEMP TABLE big AS SELECT repeat('x', 60) || range AS s FROM range(400000)`); err != nil {
		t.Fatal(err)
	}
	var files int64
	var dir string
	if err := db.QueryRow(`SELECT count(*), any_value(parse_dirpath(path)) FROM duckdb_temporary_files()`).Scan(&files, &dir); err != nil {
		t.Fatal(err)
	}
	if files == 0 || filepath.Clean(dir) != tmp {
		t.Errorf("spilled %d files into %q; want some in %s", files, dir, tmp)
	}
	db.Close()
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the spill directory outlived the database: %v", err)
	}
}

// TestMemoryLimitApplied: --memory-limit reaches DuckDB, and the default is
// the smaller of 4 GiB and half the RAM, for read-only and writable opens.
func TestMemoryLimitApplied(t *testing.T) {
	path := chaosFile(t, nil)
	setting := func(db *sql.DB, name string) string {
		var v string
		if err := db.QueryRow(`SELECT current_setting(?)`, name).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Opens of one file in one process share a DuckDB instance (the Go
	// driver's cache), so each is closed before the next.
	small := readOnly(t, path, Options{MemoryLimit: "256MiB"})
	if got := setting(small.DB, "memory_limit"); got != "256.0 MiB" {
		t.Errorf("--memory-limit 256MiB: DuckDB has %s", got)
	}
	small.Close()
	plain, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.Exec(`SET memory_limit = ` + quote(DefaultMemoryLimit())); err != nil {
		t.Fatal(err)
	}
	want := setting(plain, "memory_limit")
	ro := readOnly(t, path, Options{})
	if got := setting(ro.DB, "memory_limit"); got != want {
		t.Errorf("read-only default: DuckDB has %s, want %s (%s)", got, want, DefaultMemoryLimit())
	}
	if got := setting(ro.DB, "temp_directory"); got != DefaultTempDir(path) {
		t.Errorf("read-only temp_directory %s, want %s", got, DefaultTempDir(path))
	}
	ro.Close()
	wr, err := Open(context.Background(), path, Options{Mode: Write})
	if err != nil {
		t.Fatal(err)
	}
	defer wr.Close()
	if got := setting(wr.DB, "memory_limit"); got != want {
		t.Errorf("writable default: DuckDB has %s, want %s", got, want)
	}
}

// TestCheckMemoryLimit reads sizes the way DuckDB does and refuses the rest.
func TestCheckMemoryLimit(t *testing.T) {
	for in, want := range map[string]string{"2GB": "2GB", "512mib": "512MiB", " 1.5 gb ": "1.5GB", "100kB": "100KB"} {
		if got, err := CheckMemoryLimit(in); err != nil || got != want {
			t.Errorf("CheckMemoryLimit(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "2", "lots", "0GB", "2GB; SET x=1", "-1GB"} {
		if _, err := CheckMemoryLimit(in); err == nil {
			t.Errorf("CheckMemoryLimit(%q): want an error", in)
		}
	}
}

// TestDefaultMemoryLimit: at most 4 GiB, and at most half of MemTotal.
func TestDefaultMemoryLimit(t *testing.T) {
	got := DefaultMemoryLimit()
	var mib int64
	if _, err := fmt.Sscanf(got, "%dMiB", &mib); err != nil {
		t.Fatalf("DefaultMemoryLimit() = %q: %v", got, err)
	}
	if mib > 4096 || (totalRAM() > 0 && mib<<20 > totalRAM()/2) {
		t.Errorf("DefaultMemoryLimit() = %s; RAM %d bytes", got, totalRAM())
	}
}

// TestOpenLocked: a file locked by another DuckDB instance gives a
// LockedError. Within one process DuckDB's Go driver shares an instance per
// file, so the other holder here is a second process: the test binary itself.
func TestOpenLocked(t *testing.T) {
	if os.Getenv("REWIND_HOLD_DB") != "" {
		t.Skip("helper process")
	}
	path := chaosFile(t, nil)
	_, release := holddb.Start(t, path)
	_, err := Open(context.Background(), path, Options{})
	var le *LockedError
	if !errors.As(err, &le) || le.PID == 0 || le.Holder == "" {
		t.Fatalf("got %v, want a LockedError naming the holder", err)
	}
	if !strings.Contains(err.Error(), "is in use: another process (") {
		t.Errorf("message: %v", err)
	}
	release()
	db := readOnly(t, path, Options{})
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
}

// TestHoldDBHelper is the second process of holddb.Start: it holds the
// database open for writing until its stdin closes.
func TestHoldDBHelper(t *testing.T) {
	holddb.Serve(t, func(path string) (io.Closer, error) { return Open(context.Background(), path, Options{Mode: Write}) })
}

// TestDefaultTempDir: a read-only open spills beside the database, in a
// directory of its own process, or under os.TempDir() when the database's
// directory takes no new file; the probe leaves nothing behind.
func TestDefaultTempDir(t *testing.T) {
	dir := t.TempDir()
	pid := fmt.Sprint(os.Getpid())
	if got, want := DefaultTempDir(filepath.Join(dir, "r.duckdb")), filepath.Join(dir, "r.duckdb.tmp-"+pid); got != want {
		t.Errorf("writable directory: %s, want %s", got, want)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left in the directory: %v", left)
	}
	if got, want := DefaultTempDir(filepath.Join(dir, "missing", "r.duckdb")), filepath.Join(os.TempDir(), "rewind-"+pid); got != want {
		t.Errorf("directory that takes no file: %s, want %s", got, want)
	}
}
