package store

import (
	"bufio"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	isandbox "github.com/rewind-dev/rewind/internal/sandbox"
)

// sandbox is what a read-only open sets, in this order: the settings that
// close file, URL and extension access (see internal/sandbox), then the lock,
// after which no SET can undo them (sandbox_test.go tries each). It also
// forbids changing temp_directory, so that is set before it.
var sandbox = append(slices.Clone(isandbox.Settings), isandbox.Lock)

// settings are the SET statements an open applies, in order: memory,
// threads (in memory only: a file's go in its DSN, withThreads), spill
// directory, then (read-only) the sandbox.
func (o Options) settings(path string) ([]string, error) {
	writable := o.Mode != Read
	mem := DefaultMemoryLimit()
	if o.MemoryLimit != "" {
		var err error
		if mem, err = CheckMemoryLimit(o.MemoryLimit); err != nil {
			return nil, fmt.Errorf("memory limit %w", err)
		}
	}
	s := []string{"SET memory_limit = " + quote(mem)}
	if path == "" { // in memory: no DSN of connect's carries the threads
		threads, err := threadsSetting()
		if err != nil {
			return nil, err
		}
		if threads != "" {
			s = append(s, threads)
		}
	}
	dir := o.TempDir
	if dir == "" && !writable {
		dir = DefaultTempDir(path)
	}
	if dir != "" {
		abs, err := checkTempDir(dir)
		if err != nil {
			return nil, err
		}
		s = append(s, "SET temp_directory = "+quote(abs))
	}
	if !writable {
		s = append(s, sandbox...)
	}
	return s, nil
}

// configure applies the settings on a new connection, unless an earlier
// connection to the same database instance has locked them (DuckDB's Go
// driver shares one instance per file within a process).
func configure(ctx context.Context, ex driver.ExecerContext, settings []string) error {
	locked, err := configLocked(ctx, ex)
	if err != nil || locked {
		return err
	}
	for _, s := range settings {
		if _, err := ex.ExecContext(ctx, s, nil); err != nil {
			return fmt.Errorf("configure the database (%s): %w", s, err)
		}
	}
	return nil
}

func configLocked(ctx context.Context, ex driver.ExecerContext) (bool, error) {
	v, err := queryValue(ctx, ex, `SELECT current_setting('lock_configuration')`)
	if errors.Is(err, errNoQuery) {
		return false, nil
	}
	b, _ := v.(bool)
	return b, err
}

var errNoQuery = errors.New("the driver's connection does not query")

// queryValue is the first column of q's first row, read on a driver
// connection (what a connector's initialiser has).
func queryValue(ctx context.Context, ex driver.ExecerContext, q string) (driver.Value, error) {
	qc, ok := ex.(driver.QueryerContext)
	if !ok {
		return nil, errNoQuery
	}
	rows, err := qc.QueryContext(ctx, q, nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	v := make([]driver.Value, len(rows.Columns()))
	if err := rows.Next(v); err != nil {
		return nil, err
	}
	return v[0], nil
}

// maxDefaultMemory caps the default memory limit: DuckDB's own default is
// 80 % of RAM, which leaves little for anything else on a shared machine.
const maxDefaultMemory = 4 << 30

// DefaultMemoryLimit is the smaller of 4 GiB and half the RAM (from
// /proc/meminfo; 4 GiB where that cannot be read), as a DuckDB size.
func DefaultMemoryLimit() string {
	limit := int64(maxDefaultMemory)
	if ram := totalRAM(); ram > 0 && ram/2 < limit {
		limit = ram / 2
	}
	return fmt.Sprintf("%dMiB", limit>>20)
}

// totalRAM reads MemTotal from /proc/meminfo, in bytes; 0 when unknown.
func totalRAM() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

var sizeRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([kmgt]i?b|b)$`)

// CheckMemoryLimit checks a size such as 2GB, 512MiB or 1.5GB (KB, MB, GB,
// TB are powers of 1000, KiB ... TiB powers of 1024, as in DuckDB) and
// returns it as DuckDB reads it.
func CheckMemoryLimit(s string) (string, error) {
	m := sizeRE.FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		return "", fmt.Errorf("%q: want a size such as 2GB or 512MiB", s)
	}
	if f, _ := strconv.ParseFloat(m[1], 64); f <= 0 {
		return "", fmt.Errorf("%q: want a size above 0", s)
	}
	unit := strings.ToUpper(m[2])
	unit = strings.Replace(unit, "IB", "iB", 1)
	return m[1] + unit, nil
}

// DefaultTempDir is where a read-only open of path spills: a directory of
// this process's own beside the database when that directory is writable
// (so spills land on the disk that holds the data), else under os.TempDir().
// DuckDB's default, <db>.tmp, would be shared by every process reading the
// file at once (DuckDB lets readers share it), and a read-only open may not
// be able to create it. DuckDB creates the directory on its first spill and
// removes it when the database closes.
func DefaultTempDir(path string) string {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	name := fmt.Sprintf("%s.tmp-%d", base, os.Getpid())
	if writableDir(dir) {
		return filepath.Join(dir, name)
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("rewind-%d", os.Getpid()))
}

// writableDir reports whether a file can be created in dir (a portable
// test: permission bits say nothing of read-only mounts or of root).
func writableDir(dir string) bool {
	f, err := os.CreateTemp(dir, ".rewind-probe-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}

// checkTempDir returns dir as an absolute path; an existing path must be a
// directory.
func checkTempDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("temp dir %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return "", fmt.Errorf("temp dir %s: not a directory", dir)
	}
	return abs, nil
}

// Sandboxed reports whether err is the sandbox of a read-only open refusing
// a query access to a file, a URL or an extension, or a call outside its
// allow-list.
func Sandboxed(err error) bool {
	if err == nil {
		return false
	}
	if isandbox.Refusal(err) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "disabled by configuration") || strings.Contains(msg, "disabled through configuration")
}

// quote is s as a SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// quoteList is a SQL list of string literals.
func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
