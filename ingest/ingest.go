package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// Options steer one ingest.
type Options struct {
	Experiment string            // names the experiment of every row; default: the row's, else the file name
	Run        string            // run for rows that give none
	From       string            // format; default: detected
	Params     map[string]string // stored with the experiment (JSON values, or text)
	// Progress, when set, is called with bytes read so far and the total.
	Progress func(done, total int64)
}

// Result tells what happened to one file.
type Result struct {
	Path       string
	Format     string
	Experiment string
	Rows       int64
	Events     int64
	Skipped    bool // an identical file was ingested before: nothing was done
}

// Files ingests paths in one transaction: either every file is loaded or,
// on the first error, none is and the database is unchanged.
func Files(ctx context.Context, db *sql.DB, opts Options, paths []string) ([]Result, error) {
	if opts.From != "" && !validFormat(opts.From) {
		return nil, fmt.Errorf("unknown format %q (want one of %s)", opts.From, strings.Join(Formats, ", "))
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
	results, err := ingestAll(ctx, &loader{conn: conn, ar: ar, opts: opts}, paths)
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
	seen map[string]bool // hashes loaded by this ingest
}

func ingestAll(ctx context.Context, l *loader, paths []string) ([]Result, error) {
	l.seen = map[string]bool{}
	var results []Result
	for _, p := range paths {
		res, err := l.file(ctx, p)
		if err != nil {
			return nil, withFile(p, err)
		}
		results = append(results, res)
	}
	return results, nil
}

func (l *loader) file(ctx context.Context, path string) (Result, error) {
	res := Result{Path: path}
	sum, size, err := hashFile(path)
	if err != nil {
		return res, err
	}
	if size == 0 {
		return res, errors.New("file is empty")
	}
	if done, err := l.already(ctx, sum, &res); err != nil || done {
		if err == nil && len(l.opts.Params) > 0 {
			err = l.storeParams(ctx, res.Experiment)
		}
		return res, err
	}
	format, err := l.format(path)
	if err != nil {
		return res, err
	}
	res.Format = format
	res.Experiment = l.experimentFor(path)
	fileID, err := l.nextFileID(ctx)
	if err != nil {
		return res, err
	}
	c := newCollector()
	defer c.release()
	p, closeSrc, err := l.decoder(ctx, path, format, size, c)
	if err != nil {
		return res, err
	}
	defer closeSrc()
	if res.Rows, err = l.insertRequests(ctx, p, fileID, res.Experiment); err != nil {
		return res, err
	}
	if res.Events, err = l.insertEvents(ctx, c, fileID, res.Experiment); err != nil {
		return res, err
	}
	if res.Rows == 0 && res.Events == 0 {
		return res, errors.New("file is empty: no records in it")
	}
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
	_, err = l.conn.ExecContext(ctx, `INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, now())`,
		fileID, path, sum, l.opts.Experiment, format, res.Experiment, res.Rows+res.Events)
	l.seen[sum] = true
	return res, err
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

func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

func (l *loader) already(ctx context.Context, sum string, res *Result) (bool, error) {
	if l.seen[sum] {
		res.Skipped = true
		return true, nil
	}
	err := l.conn.QueryRowContext(ctx, `SELECT experiment, format, rows FROM files WHERE sha256 = ? AND named_as = ?`,
		sum, l.opts.Experiment).Scan(&res.Experiment, &res.Format, &res.Rows)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	res.Skipped = err == nil
	return res.Skipped, err
}

func (l *loader) format(path string) (string, error) {
	if l.opts.From != "" {
		return l.opts.From, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	if len(bytes.TrimSpace(head[:n])) == 0 {
		return "", errors.New("file is empty: only whitespace")
	}
	return Detect(path, head[:n])
}

func (l *loader) experimentFor(path string) string {
	if l.opts.Experiment != "" {
		return l.opts.Experiment
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

// decoder opens path and returns the producer of its staging batches.
func (l *loader) decoder(ctx context.Context, path, format string, size int64, c *collector) (produce, func(), error) {
	switch format {
	case FormatParquet, FormatArrow:
		src, closeSrc, err := openArrowSource(ctx, path, format)
		if err != nil {
			return nil, nil, err
		}
		return decodeTyped(src), closeSrc, nil
	case FormatJSON, FormatGunluk:
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		if format == FormatGunluk {
			return decodeGunluk(data, c), func() {}, nil
		}
		return decodeJSONArray(data, c), func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	in := &countingReader{r: f, total: size, progress: l.opts.Progress}
	if format == FormatCSV {
		return decodeCSV(in), func() { f.Close() }, nil
	}
	return decodeNDJSON(in, c), func() { f.Close() }, nil
}

type countingReader struct {
	r        io.Reader
	n        atomic.Int64
	total    int64
	progress func(done, total int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	done := c.n.Add(int64(n))
	if c.progress != nil {
		c.progress(done, c.total)
	}
	return n, err
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

var _ arrow.RecordBatch = nil
