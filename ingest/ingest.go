package ingest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/duckarrow"
	"github.com/rewind-dev/rewind/internal/param"
)

// Options steer one ingest.
type Options struct {
	Experiment string            // names the experiment of every row; default: the row's, else the file name
	Run        string            // run for rows that give none
	Name       string            // what standard input is called (default: stdin-N)
	From       string            // format; default: detected
	Params     map[string]string // stored with the experiment (JSON values, or text)
	// OkStatus lists the HTTP statuses that count as ok where a format gives
	// a status but no outcome, e.g. "200-399" (the default) or "200-299,404".
	OkStatus string
	// LogFormat is a text access log's layout, as the server's own
	// configuration gives it: an nginx log_format or an Apache LogFormat
	// line, or the format line of the server named by Server (--log-format,
	// --server). It implies the clf format.
	LogFormat string
	// Server names the language of LogFormat (logformat.Servers: nginx,
	// apache, lighttpd, tomcat9, tomcat10, varnishncsa, squid,
	// trafficserver, h2o, envoy, haproxy); "" tells nginx from Apache by
	// the line.
	Server string
	// TimeIs says what a mapped ts means (--time-is): "start" (also ""),
	// or "end", when start = end − latency.
	TimeIs string
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
	// MaxRecord caps one record in bytes (0: DefaultMaxRecord); a format
	// read as one document may be 16 records long. MaxRatio caps how many
	// times its size a compressed file may decompress to (0:
	// DefaultMaxRatio).
	MaxRecord, MaxRatio int64
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
	Skipped     bool         // nothing was loaded from this file: see Why
	Why         *param.Error // why it was skipped (a message, not a fault)
	// ResolutionMs is the finest time step the file's times show (1000 for
	// whole seconds, 1 for whole milliseconds, 0.001 for microseconds); 0
	// when its rows carry no times.
	ResolutionMs float64
	// Warnings are things worth a look that did not stop the ingest, such
	// as outcome values outside the known set. Each names the parameters
	// it speaks of as a param.Error does (param.Say renders them).
	Warnings []*param.Error
}

// Files ingests paths in one transaction: either every file is loaded or,
// on the first error, none is and the database is unchanged. A path may be
// "-" (standard input), a folder (every file in it whose format is
// recognised; the others are returned as skipped) or a glob pattern.
func Files(ctx context.Context, db DB, opts Options, paths []string) ([]Result, error) {
	if opts.From != "" && !validFormat(opts.From) {
		return nil, fmt.Errorf("unknown format %q (want one of %s)", opts.From, strings.Join(Formats, ", "))
	}
	if err := checkLogFormat(opts); err != nil {
		return nil, err
	}
	if err := checkTimeIs(opts); err != nil {
		return nil, err
	}
	if opts.Replace && opts.Append {
		return nil, param.Errorf("replace", "{replace} and {append} exclude each other")
	}
	if err := checkParams(opts.Params); err != nil {
		return nil, err
	}
	okRanges, err := parseStatusRanges(opts.OkStatus)
	if err != nil {
		return nil, err
	}
	srcs, err := expand(paths)
	if err != nil {
		return nil, err
	}
	return ingestSources(ctx, db, opts, okRanges, srcs)
}

// DB is the database an ingest loads into: a *store.DB opened for writing
// (which has created the tables) or its *sql.DB. The ingest holds one
// connection of it for its transaction.
type DB interface {
	Conn(ctx context.Context) (*sql.Conn, error)
}

// ingestSources loads the files expand found, in one transaction.
func ingestSources(ctx context.Context, db DB, opts Options, okRanges []statusRange, srcs []source) ([]Result, error) {
	if err := checkName(opts, srcs); err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	ar, err := duckarrow.Of(conn)
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

// errText is an error's message without the path the result names.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

func validFormat(f string) bool {
	_, ok := formatNamed(f)
	return ok
}

type loader struct {
	conn *sql.Conn
	ar   *duckdb.Arrow
	opts Options
	ok   []statusRange
	// fileRuns: --experiment was given, so each file is a run of it, named
	// from the file where its rows name none.
	fileRuns bool
	// renumber: the file's rows need their run_pos from SQL (runpos.go);
	// dirtyRuns are runs an earlier file was taken out of (--replace).
	renumber  bool
	dirtyRuns []runKey
	// reqFromPos: the current file's rows without req or req_text take
	// their run_pos as req in the insert. Only for formats decoded in line
	// order (rows cannot come out of order), with no {map} (one may set
	// run, experiment or req) and no {replace} (the earlier version's rows
	// leave the run after the insert): there run_pos stands as the rows
	// stream in.
	reqFromPos bool
	// tmsFromTs: the current file's rows give no t_ms and no experiment of
	// their own (a text access log's), so the insert takes their t_ms from
	// their ts (tmsOrigin), unless a {map} may set either or {replace}
	// moves the experiment's origin.
	tmsFromTs bool
	rejoin    map[runKey]bool   // runs the current file's earlier version was in (--replace): it may join them again
	runCounts map[runKey]int64  // rows per run so far, for run_pos; nil: read it
	seen      map[string]Result // hashes loaded by this ingest
	tOrigin   string            // the experiment whose origin the current file's t_ms came from
	mapSQL    []string          // the --map expressions as DuckDB renders them, once checked (mapexpr.go)
}

func ingestAll(ctx context.Context, l *loader, srcs []source) ([]Result, error) {
	if err := l.prepareMaps(ctx); err != nil {
		return nil, err
	}
	if err := l.positionUnnumbered(ctx); err != nil {
		return nil, err
	}
	l.seen = map[string]Result{}
	var results []Result
	for _, s := range srcs {
		name, err := l.inputName(ctx, s.name)
		if err != nil {
			return nil, err
		}
		res, err := l.file(ctx, s, name)
		if err != nil {
			return nil, withFile(name, err)
		}
		results = append(results, res)
	}
	return results, l.storeGaps(ctx, results)
}

// file loads one input; name is what results and messages call it.
func (l *loader) file(ctx context.Context, s source, name string) (Result, error) {
	res := Result{Path: name}
	if s.skip != "" {
		res.Skipped, res.Why = true, param.Textf("%s", s.skip)
		return res, nil
	}
	l.tOrigin, l.rejoin = "", map[runKey]bool{}
	l.startProgress(s.name)
	in, err := openInput(s.name, l.opts.Stdin, limits{l.opts.MaxRecord, l.opts.MaxRatio})
	if err != nil && s.fromDir {
		// A folder may hold a stray file rewind cannot read (a socket, a
		// file of another user): skipped and named, as an unrecognised one
		// is; only a file it recognises and finds bad fails the ingest.
		res.Skipped, res.Why = true, param.Textf("cannot be read: %s", errText(err))
		return res, nil
	}
	if err != nil {
		return res, err
	}
	defer in.close()
	in.name, in.mapRaw = name, l.rawFields()
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
			res.Skipped, res.Why = true, param.Textf("format not recognised")
			return res, nil
		}
		return res, err
	}
	res.Format = f.Name()
	if res.Experiment, err = l.experimentFor(ctx, in); err != nil {
		return res, err
	}
	fileRun, err := l.fileRunFor(ctx, in, res.Experiment)
	if err != nil {
		return res, err
	}
	fileID, err := l.nextFileID(ctx)
	if err != nil {
		return res, err
	}
	c := newCollector()
	defer c.release()
	if err := l.load(ctx, in, f, fileID, fileRun, c, &res); err != nil {
		return res, err
	}
	sum := in.sum()
	if done, err := l.repeatAfterDecode(ctx, sum, fileID, &res); err != nil || done {
		return res, err
	}
	if err := l.samePath(ctx, in, sum); err != nil {
		return res, err
	}
	if err := l.record(ctx, in, f, fileID, fileRun, sum, c, &res); err != nil {
		return res, err
	}
	l.seen[sum] = res
	return res, nil
}

// startProgress starts the clock before the first read, so the first rate
// shown is not a buffer fill divided by no time.
func (l *loader) startProgress(name string) {
	if l.opts.Progress == nil {
		return
	}
	size := int64(-1)
	if st, err := os.Stat(name); err == nil && name != Stdin {
		size = st.Size()
	}
	l.opts.Progress(0, size)
}

// load decodes the input and inserts its requests and events.
func (l *loader) load(ctx context.Context, in *input, f record.Format, fileID int64, fileRun string, c *collector, res *Result) error {
	if l.opts.Progress != nil {
		stop := l.progress(in)
		defer stop()
	}
	err := l.loadRows(ctx, in, f, fileID, fileRun, c, res)
	// Bad text a decoder replaced with U+FFFD instead of reporting it (a
	// key, a value decoded by encoding/json or XML) fails the file at its
	// line, whatever the format; it wins over a decoder's error at the same
	// or a later line that the replaced text may have caused (an unknown
	// record type, a bind error).
	if terr := in.TextErr(); terr != nil && !fieldReported(err) && textFirst(err, in.guard.text.badLine) {
		return terr
	}
	if err != nil {
		return err
	}
	if res.Rows == 0 && res.Events == 0 {
		return errors.New("file is empty: no records in it")
	}
	return nil
}

func (l *loader) loadRows(ctx context.Context, in *input, f record.Format, fileID int64, fileRun string, c *collector, res *Result) error {
	p, err := f.Decode(in, c)
	if err != nil {
		return err
	}
	if err := in.linesOnly(); err != nil {
		return err
	}
	st, _ := f.(record.Streamed)
	lineOrdered, tsOnly := st != nil && st.InLineOrder(), st != nil && st.TimesFromTs()
	l.reqFromPos = reqInInsert && lineOrdered && len(l.opts.Maps) == 0 && !l.opts.Replace && len(l.dirtyRuns) == 0 && !l.renumber
	l.tmsFromTs = tmsInInsert && tsOnly && len(l.opts.Maps) == 0 && !l.opts.Replace
	if res.Rows, err = l.insertRequests(ctx, p, fileID, res.Experiment, fileRun); err != nil {
		return err
	}
	res.Events, err = l.insertEvents(ctx, c, fileID, res.Experiment)
	return err
}

// reqInInsert lets reqFromPos be set (a variable only so that a test can
// hold the insert's req to fillDerived's).
var reqInInsert = true

// tmsInInsert lets tmsFromTs be set (a variable only so that a test can
// hold the insert's t_ms to deriveTimes').
var tmsInInsert = true

// textFirst says bad text at line bad goes before err: there is no error,
// or it is at the same or a later line, or it is not a decoder's own
// (a database error such as a bind error the text caused). A decoder's
// verdict on the whole file (line 0: a binary Gatling log) stands.
func textFirst(err error, bad int64) bool {
	var le *LineError
	if err == nil || !errors.As(err, &le) {
		return true
	}
	return le.Line >= bad
}

// fieldReported says err already names a field's invalid UTF-8.
func fieldReported(err error) bool {
	var le *LineError
	return errors.As(err, &le) && le.Field != "" && strings.Contains(le.Msg, "invalid UTF-8")
}

// record derives what needs the whole file, stores the experiments, runs
// and parameters it touched, and the files row.
func (l *loader) record(ctx context.Context, in *input, f record.Format, fileID int64, fileRun, sum string, c *collector, res *Result) error {
	if err := l.finishRows(ctx, fileID, res); err != nil {
		return err
	}
	if err := l.summarizeRuns(ctx, fileID); err != nil {
		return err
	}
	defer l.dropRunsSummary(ctx)
	if err := l.joinedRun(ctx, fileID, in); err != nil {
		return err
	}
	if err := l.renamedWarnings(ctx, fileID, in, res.Experiment, fileRun, res); err != nil {
		return err
	}
	// A time logged in whole seconds stays that coarse after a finer
	// duration is taken off it (nginx's end time less $request_time).
	if res.ResolutionMs != 0 && c.timeStepMs > res.ResolutionMs {
		res.ResolutionMs = c.timeStepMs
	}
	res.Warnings = append(res.Warnings, c.warnings...)
	if err := l.storeMeta(ctx, c, fileID, res.Experiment); err != nil {
		return err
	}
	if l.rolesSet(c) { // storeMeta wrote roles into the file's rows
		if err := l.summarizeRuns(ctx, fileID); err != nil {
			return err
		}
	}
	if err := l.sharedRole(ctx, res); err != nil {
		return err
	}
	var err error
	if res.Experiment, err = l.fileExperiments(ctx, fileID); err != nil {
		return err
	}
	if len(l.opts.Params) > 0 {
		if err := l.storeParams(ctx, res.Experiment); err != nil {
			return err
		}
	}
	_, err = l.conn.ExecContext(ctx, `INSERT INTO files (file_id, path, sha256, named_as, format, experiment, rows, ingested_at, bytes, abs_path, compression, resolution_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?, now(), ?, ?, ?, ?)`,
		fileID, in.name, sum, l.opts.Experiment, f.Name(), res.Experiment, res.Rows+res.Events, in.read(), absPath(in.path),
		in.compression, nullIfZero(res.ResolutionMs))
	if err != nil {
		return err
	}
	return l.recordOrigin(ctx, fileID)
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
		(SELECT experiment FROM `+runsSummary+` UNION ALL SELECT experiment FROM events WHERE file_id = ?)`,
		fileID).Scan(&names)
	return names, err
}

func (l *loader) format(in *input) (record.Format, error) {
	if l.opts.LogFormat != "" {
		_, lf := layouted()
		return lf.WithLayout(l.opts.Server, l.opts.LogFormat)
	}
	if l.opts.From != "" {
		f, _ := formatNamed(l.opts.From)
		return f, nil
	}
	if len(bytes.TrimSpace(in.head)) == 0 {
		return nil, errors.New("file is empty: only whitespace")
	}
	return detectFormat(in.DetectName(), in.head)
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
