package ingest

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// Options steer one ingest.
type Options struct {
	Experiment string            // names the experiment of every row; default: the row's, else the file name
	Run        string            // run for rows that give none
	From       string            // format; default: detected
	Params     map[string]string // stored with the experiment (JSON values, or text)
	// OkStatus lists the HTTP statuses that count as ok where a format gives
	// a status but no outcome, e.g. "200-399" (the default) or "200-299,404".
	OkStatus string
	// Maps set canonical columns from SQL expressions over the source's own
	// fields (--map COLUMN=EXPR), in order.
	Maps []Mapping
	// Replace drops what an earlier ingest of the same path loaded (its
	// content changed) in the same transaction; Append keeps it and adds
	// the new content. Without either, such a file is refused.
	Replace, Append bool
	// Roles gives runs their role (control, experiment), by run name, for
	// logs that cannot say it themselves (--role RUN=ROLE).
	Roles map[string]string
	// Stdin is read for the argument "-".
	Stdin io.Reader
	// Progress, when set, is called with bytes read so far and the total
	// (-1 when unknown, as for a pipe).
	Progress func(done, total int64)
}

// Result tells what happened to one file.
type Result struct {
	Path        string
	Format      string
	Compression string // "", "gzip" or "zstd"
	Experiment  string
	Rows        int64
	Events      int64
	Skipped     bool   // nothing was loaded from this file: see Why
	Why         string // why it was skipped
	// ResolutionMs is the finest time step the file's times show (1000 for
	// whole seconds, 1 for whole milliseconds, 0.001 for microseconds); 0
	// when its rows carry no times.
	ResolutionMs float64
	// Warnings are things worth a look that did not stop the ingest, such
	// as outcome values outside the known set.
	Warnings []string
}

// Files ingests paths in one transaction: either every file is loaded or,
// on the first error, none is and the database is unchanged. A path may be
// "-" (standard input), a folder (every file in it whose format is
// recognised; the others are returned as skipped) or a glob pattern.
func Files(ctx context.Context, db *sql.DB, opts Options, paths []string) ([]Result, error) {
	if opts.From != "" && !validFormat(opts.From) {
		return nil, fmt.Errorf("unknown format %q (want one of %s)", opts.From, strings.Join(Formats, ", "))
	}
	if opts.Replace && opts.Append {
		return nil, errors.New("--replace and --append exclude each other")
	}
	okRanges, err := parseStatusRanges(opts.OkStatus)
	if err != nil {
		return nil, err
	}
	srcs, err := expand(paths)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := EnsureSchema(ctx, conn); err != nil {
		return nil, err
	}
	ar, err := arrowOf(conn)
	if err != nil {
		return nil, err
	}
	// Rows carry their order in seq, so DuckDB may insert in any order,
	// which lets it scan and insert in parallel.
	if _, err := conn.ExecContext(ctx, "SET preserve_insertion_order = false"); err != nil {
		return nil, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "RESET preserve_insertion_order") //nolint:errcheck // the connection goes back to the pool
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return nil, err
	}
	l := &loader{conn: conn, ar: ar, opts: opts, ok: okRanges, fileRuns: opts.Experiment != ""}
	results, err := ingestAll(ctx, l, srcs)
	if err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	return results, nil
}

func validFormat(f string) bool {
	for _, x := range Formats {
		if x == f {
			return true
		}
	}
	return false
}

func arrowOf(conn *sql.Conn) (*duckdb.Arrow, error) {
	var ar *duckdb.Arrow
	err := conn.Raw(func(dc any) error {
		var err error
		ar, err = duckdb.NewArrowFromConn(dc.(driver.Conn))
		return err
	})
	return ar, err
}

type loader struct {
	conn *sql.Conn
	ar   *duckdb.Arrow
	opts Options
	ok   []statusRange
	// fileRuns: --experiment was given, so each file is a run of it, named
	// from the file where its rows name none.
	fileRuns bool
	seen     map[string]Result // hashes loaded by this ingest
	tOrigin  string            // the experiment whose origin the current file's t_ms came from
}

func ingestAll(ctx context.Context, l *loader, srcs []source) ([]Result, error) {
	l.seen = map[string]Result{}
	var results []Result
	for _, s := range srcs {
		res, err := l.file(ctx, s)
		if err != nil {
			return nil, withFile(s.name, err)
		}
		results = append(results, res)
	}
	return results, nil
}

func (l *loader) file(ctx context.Context, s source) (Result, error) {
	res := Result{Path: s.name}
	l.tOrigin = ""
	if l.opts.Progress != nil {
		// Start the clock before the first read, so the first rate shown is
		// not a buffer fill divided by no time.
		size := int64(-1)
		if st, err := os.Stat(s.name); err == nil && s.name != Stdin {
			size = st.Size()
		}
		l.opts.Progress(0, size)
	}
	in, err := openInput(s.name, l.opts.Stdin)
	if err != nil {
		return res, err
	}
	defer in.close()
	res.Compression = in.compression
	if in.size == 0 || len(in.head) == 0 {
		return res, errors.New("file is empty")
	}
	if done, err := l.repeatBeforeDecode(ctx, in, &res); err != nil || done {
		return res, err
	}
	f, err := l.format(in)
	if err != nil {
		if s.fromDir {
			res.Skipped, res.Why = true, "format not recognised"
			return res, nil
		}
		return res, err
	}
	res.Format = f.name
	res.Experiment = l.experimentFor(in.detectName())
	fileID, err := l.nextFileID(ctx)
	if err != nil {
		return res, err
	}
	c := newCollector()
	defer c.release()
	if l.opts.Progress != nil {
		stop := l.progress(in)
		defer stop()
	}
	p, err := f.decode(in, c)
	if err != nil {
		return res, err
	}
	if res.Rows, err = l.insertRequests(ctx, p, fileID, res.Experiment, runName(in.detectName())); err != nil {
		return res, err
	}
	if res.Events, err = l.insertEvents(ctx, c, fileID, res.Experiment); err != nil {
		return res, err
	}
	if res.Rows == 0 && res.Events == 0 {
		return res, errors.New("file is empty: no records in it")
	}
	sum := in.sum()
	if done, err := l.repeatAfterDecode(ctx, sum, fileID, &res); err != nil || done {
		return res, err
	}
	if err := l.samePath(ctx, in, sum); err != nil {
		return res, err
	}
	if err := l.finishRows(ctx, fileID, &res); err != nil {
		return res, err
	}
	res.Warnings = append(res.Warnings, c.warnings...)
	if err := l.storeMeta(ctx, c, fileID, res.Experiment); err != nil {
		return res, err
	}
	if res.Experiment, err = l.fileExperiments(ctx, fileID); err != nil {
		return res, err
	}
	if len(l.opts.Params) > 0 {
		if err := l.storeParams(ctx, res.Experiment); err != nil {
			return res, err
		}
	}
	_, err = l.conn.ExecContext(ctx, `INSERT INTO files (file_id, path, sha256, named_as, format, experiment, rows, ingested_at, bytes, abs_path, compression, resolution_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?, now(), ?, ?, ?, ?)`,
		fileID, s.name, sum, l.opts.Experiment, f.name, res.Experiment, res.Rows+res.Events, in.read(), absPath(in.path),
		in.compression, nullIfZero(res.ResolutionMs))
	if err != nil {
		return res, err
	}
	l.seen[sum] = res
	return res, l.recordOrigin(ctx, fileID)
}

// progress reports the bytes read of in until stop is called.
func (l *loader) progress(in *input) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				l.opts.Progress(in.read(), in.size)
				return
			case <-t.C:
				l.opts.Progress(in.read(), in.size)
			}
		}
	}()
	return func() { close(done); <-finished }
}

func absPath(p string) any {
	if p == "" {
		return nil
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func nullIfZero(f float64) any {
	if f == 0 {
		return nil
	}
	return f
}

// fileExperiments names the experiments a file's rows went to (rows may
// carry their own experiment), comma-separated.
func (l *loader) fileExperiments(ctx context.Context, fileID int64) (string, error) {
	var names string
	err := l.conn.QueryRowContext(ctx, `SELECT string_agg(DISTINCT experiment, ', ' ORDER BY experiment) FROM
		(SELECT experiment FROM requests WHERE file_id = ? UNION ALL SELECT experiment FROM events WHERE file_id = ?)`,
		fileID, fileID).Scan(&names)
	return names, err
}

// repeatBeforeDecode answers a re-ingest without decoding: only when a file
// of the same size was ingested under the same --experiment is the file
// hashed first (the one case where a pass before decoding pays).
func (l *loader) repeatBeforeDecode(ctx context.Context, in *input, res *Result) (bool, error) {
	if in.path == "" {
		return false, nil
	}
	var n int
	if err := l.conn.QueryRowContext(ctx, `SELECT count(*) FROM files WHERE bytes = ? AND named_as = ?`,
		in.size, l.opts.Experiment).Scan(&n); err != nil {
		return false, err
	}
	if n == 0 {
		return false, nil
	}
	sum, err := hashPath(in.path)
	if err != nil {
		return false, err
	}
	return l.already(ctx, sum, res)
}

// repeatAfterDecode finds that the content just loaded was loaded before
// (a pipe, or a file whose size was new): its rows are taken out again.
func (l *loader) repeatAfterDecode(ctx context.Context, sum string, fileID int64, res *Result) (bool, error) {
	format := res.Format
	done, err := l.already(ctx, sum, res)
	if err != nil || !done {
		return false, err
	}
	res.Format = format
	return true, l.dropFile(ctx, fileID)
}

func (l *loader) dropFile(ctx context.Context, fileID int64) error {
	for _, q := range []string{`DELETE FROM requests WHERE file_id = ?`, `DELETE FROM events WHERE file_id = ?`, `DELETE FROM files WHERE file_id = ?`} {
		if _, err := l.conn.ExecContext(ctx, q, fileID); err != nil {
			return err
		}
	}
	return nil
}

// samePath refuses a path ingested before with other content (it was
// modified in place), unless --replace or --append says what to do.
func (l *loader) samePath(ctx context.Context, in *input, sum string) error {
	if in.path == "" {
		return nil
	}
	rows, err := l.conn.QueryContext(ctx, `SELECT file_id, experiment, rows, strftime(ingested_at, '%Y-%m-%d %H:%M:%S') FROM files
		WHERE abs_path = ? AND named_as = ? AND sha256 <> ? ORDER BY file_id`, absPath(in.path), l.opts.Experiment, sum)
	if err != nil {
		return err
	}
	type earlier struct {
		id        int64
		exp, when string
		rows      int64
	}
	var prev []earlier
	for rows.Next() {
		var e earlier
		if err := rows.Scan(&e.id, &e.exp, &e.rows, &e.when); err != nil {
			rows.Close()
			return err
		}
		prev = append(prev, e)
	}
	rows.Close()
	if len(prev) == 0 || l.opts.Append {
		return nil
	}
	if l.opts.Replace {
		for _, e := range prev {
			if err := l.dropFile(ctx, e.id); err != nil {
				return err
			}
		}
		return nil
	}
	e := prev[len(prev)-1]
	return hinted(fmt.Errorf("this path was ingested before with other content (experiment %s, %d rows, at %s UTC): it changed since",
		e.exp, e.rows, e.when), "add --replace to load it instead of the earlier content, or --append to add it")
}

// HintedError carries a command line that works, for the CLI's "Try:".
type HintedError struct {
	Err error
	Try string
}

func (h *HintedError) Error() string { return h.Err.Error() }
func (h *HintedError) Unwrap() error { return h.Err }

func hinted(err error, try string) error { return &HintedError{Err: err, Try: try} }

func (l *loader) already(ctx context.Context, sum string, res *Result) (bool, error) {
	if prev, ok := l.seen[sum]; ok {
		res.Skipped, res.Experiment, res.Rows, res.Format = true, prev.Experiment, prev.Rows, prev.Format
		res.Why = "the same content as " + prev.Path + ", loaded above"
		if prev.Path == res.Path {
			res.Why = "named twice: loaded once, above"
		}
		return true, nil
	}
	var path, at string
	err := l.conn.QueryRowContext(ctx, `SELECT experiment, format, rows, path, strftime(ingested_at, '%Y-%m-%d %H:%M:%S') FROM files WHERE sha256 = ? AND named_as = ?`,
		sum, l.opts.Experiment).Scan(&res.Experiment, &res.Format, &res.Rows, &path, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	res.Skipped = true
	res.Why = "already ingested"
	if path != res.Path {
		res.Why += " as " + path
	}
	if len(l.opts.Params) > 0 {
		if err := l.storeParams(ctx, res.Experiment); err != nil {
			return false, err
		}
		res.Why += "; --set stored with experiment " + res.Experiment
	}
	return true, nil
}

func (l *loader) format(in *input) (format, error) {
	if l.opts.From != "" {
		f, _ := formatNamed(l.opts.From)
		return f, nil
	}
	if len(bytes.TrimSpace(in.head)) == 0 {
		return format{}, errors.New("file is empty: only whitespace")
	}
	return detectFormat(in.detectName(), in.head)
}

// runName is the run a file stands for when --experiment gathers files:
// its name without folder and extensions.
func runName(path string) string { return stem(path) }

func (l *loader) experimentFor(path string) string {
	if l.opts.Experiment != "" {
		return l.opts.Experiment
	}
	return stem(path)
}

func stem(path string) string {
	if path == Stdin {
		return "stdin"
	}
	base := filepath.Base(path)
	for {
		ext := filepath.Ext(base)
		if ext == "" || ext == base {
			return base
		}
		base = strings.TrimSuffix(base, ext)
	}
}

func (l *loader) nextFileID(ctx context.Context) (int64, error) {
	var id int64
	err := l.conn.QueryRowContext(ctx, `SELECT coalesce(max(file_id), 0) + 1 FROM files`).Scan(&id)
	return id, err
}

// registered runs fn while rr is visible to SQL as a view, and makes sure the
// view never outlives the call: an Arrow view left in the file crashes later
// readers (see DUCKDB-NOTES), so it is dropped before its stream is released.
func (l *loader) registered(ctx context.Context, rr array.RecordReader, fn func(view string) error) error {
	const view = "_rewind_ingest_stage"
	release, err := l.ar.RegisterView(rr, view)
	if err != nil {
		return fmt.Errorf("register arrow view: %w", err)
	}
	err = fn(view)
	if _, dropErr := l.conn.ExecContext(context.WithoutCancel(ctx), "DROP VIEW IF EXISTS "+view); dropErr != nil && err == nil {
		err = dropErr
	}
	release()
	return err
}
