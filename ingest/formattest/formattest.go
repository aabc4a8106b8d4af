// Package formattest is the contract every input format runs, in the spirit
// of Prometheus' exported promqltest: one suite, the same cases for every
// format package under ingest/format (and for a format written elsewhere).
//
// A format's cases are folders under its testdata:
//
//	real/CASE/input.*   a file from the wild, cut small; real/README.md
//	                    names each CASE and where it comes from (a CASE
//	                    with a log-format.txt, and maybe a server.txt, is
//	                    read with that format line by a record.Layouted
//	                    format, and left out of any other's)
//	golden/CASE.csv     the canonical rows the decoder makes of it (the
//	                    staging columns of record.Schema, before the
//	                    ingest's defaults); -update rewrites them
//	bad/CASE/input.*    a file the format must refuse
//	bad/CASE/want       the error after the file name, its parameters
//	                    written {name}: `:3: field "end": want ...`
//	bad/CASE/follow     (optional) what the error suggests, one
//	                    `param value` a line; the same file, ingested so,
//	                    loads
//
// Run checks each case through the whole ingest into a real DuckDB file
// (detection through the registry, the error's file:line:field, a database
// left as it was) and through the decoder alone (the goldens). Fuzz is the
// format's fuzz target, seeded from the same folders.
package formattest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	_ "github.com/duckdb/duckdb-go/v2" // the database the bad cases must leave as it was
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/golden"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/queries"
)

// Suite is one format's cases.
type Suite struct {
	Format record.Format
	// Dir holds bad/ and golden/ (the format package's testdata).
	Dir string
	// Real holds the real samples, real/ under Dir when empty. (The
	// samples of the formats that moved out of ingest stay in
	// ingest/testdata/real/FORMAT, where the ingest's own TestRealFiles
	// holds the whole ingest to its goldens.)
	Real string
}

// Run runs the contract suite.
func Run(t *testing.T, s Suite) {
	t.Helper()
	f, dir, realDir := s.Format, s.Dir, s.Real
	if realDir == "" {
		realDir = filepath.Join(dir, "real")
	}
	real := ownCases(t, f, realDir)
	if len(real) == 0 {
		t.Fatalf("%s: no real sample (want CASE/input.*)", realDir)
	}
	t.Run("registered", func(t *testing.T) { registered(t, f) })
	t.Run("real", func(t *testing.T) {
		readme, err := os.ReadFile(filepath.Join(realDir, "README.md"))
		if err != nil {
			t.Fatalf("%v: the real samples' sources are recorded there", err)
		}
		for _, c := range real {
			t.Run(filepath.Base(c), func(t *testing.T) { realCase(t, f, dir, c, readme) })
		}
	})
	t.Run("bad", func(t *testing.T) {
		bad := cases(t, filepath.Join(dir, "bad"))
		if len(bad) == 0 {
			t.Fatalf("%s: no bad input (want bad/CASE/input.* and want)", dir)
		}
		for _, c := range bad {
			t.Run(filepath.Base(c), func(t *testing.T) { badCase(t, f, c) })
		}
	})
}

// registered: the ingest knows f by its name, and the registry's order
// leaves f's own files to it (checked on the real samples).
func registered(t *testing.T, f record.Format) {
	for _, name := range ingest.Formats {
		if name == f.Name() {
			return
		}
	}
	t.Errorf("%q is not in the registry (ingest/registry.go): %v", f.Name(), ingest.Formats)
}

func realCase(t *testing.T, f record.Format, dir, c string, readme []byte) {
	if !bytes.Contains(readme, []byte(filepath.Base(c))) {
		t.Errorf("real/README.md does not name %s and its source", filepath.Base(c))
	}
	path := input(t, c)
	data := decompressed(t, read(t, path))
	if lf := readIfExists(t, filepath.Join(c, "log-format.txt")); lf != "" {
		var err error
		f, err = f.(record.Layouted).WithLayout(strings.TrimSpace(readIfExists(t, filepath.Join(c, "server.txt"))), strings.TrimSpace(lf))
		if err != nil {
			t.Fatalf("log-format.txt: %v", err)
		}
	} else if got, err := ingest.Detect(detectName(path), head(data)); got != f.Name() {
		t.Errorf("detected as %q (%v), want %q", got, err, f.Name())
	}
	rows, _, err := Decode(f, path, data)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	golden.Check(t, filepath.Join(dir, "golden", filepath.Base(c)+".csv"), rows)
}

func badCase(t *testing.T, f record.Format, c string) {
	path := input(t, c)
	want := strings.TrimRight(string(read(t, filepath.Join(c, "want"))), "\n")
	db := openDB(t)
	before := snapshot(t, db)
	_, err := ingest.Files(context.Background(), db, ingest.Options{From: f.Name()}, []string{path})
	if err == nil {
		t.Fatalf("loaded; want the error %s%s", path, want)
	}
	if got := param.Say(err, braces); got != path+want {
		t.Errorf("error\n%s\nwant\n%s%s", got, path, want)
	}
	var le *record.LineError
	if !errors.As(err, &le) || le.File != path || (le.Line == 0) != strings.HasPrefix(want, ": ") {
		t.Errorf("error %v: want a record.LineError naming %s and its line", err, path)
	}
	if snapshot(t, db) != before {
		t.Error("a refused file changed the database")
	}
	if follow, err := os.ReadFile(filepath.Join(c, "follow")); err == nil {
		followed(t, db, path, string(follow), want)
	}
}

// followed ingests path again with what the error suggests, which the
// error must name, and wants it loaded.
func followed(t *testing.T, db *sql.DB, path, follow, want string) {
	t.Helper()
	var opts ingest.Options
	for _, l := range strings.Split(strings.TrimSpace(follow), "\n") {
		k, v, _ := strings.Cut(l, " ")
		if !strings.Contains(want, "{"+k+"}") {
			t.Errorf("follow sets {%s}, which the error does not name", k)
		}
		switch k {
		case "from":
			opts.From = v
		case "server":
			opts.Server = v
		case "log-format":
			opts.LogFormat = v
		case "time-is":
			opts.TimeIs = v
		case "run":
			opts.Run = v
		case "map":
			m, err := ingest.ParseMap(v)
			if err != nil {
				t.Fatalf("follow's map %q: %v", v, err)
			}
			opts.Maps = append(opts.Maps, m)
		default:
			t.Fatalf("follow: unknown parameter %q", k)
		}
	}
	res, err := ingest.Files(context.Background(), db, opts, []string{path})
	if err != nil || len(res) != 1 || res[0].Rows == 0 {
		t.Errorf("following the error (%s): %v, %+v", strings.ReplaceAll(follow, "\n", "; "), err, res)
	}
}

func braces(p string) string { return "{" + p + "}" }

// Fuzz is a format's fuzz target: arbitrary bytes through its decoder end
// in rows or an error, never a panic or a hang. The seeds are the inputs
// of the suite's cases.
func Fuzz(f *testing.F, s Suite) {
	format := s.Format
	seeds, _ := filepath.Glob(filepath.Join(s.Dir, "*", "*", "input*"))
	if s.Real != "" {
		more, _ := filepath.Glob(filepath.Join(s.Real, "*", "input*"))
		seeds = append(seeds, more...)
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, _ = Decode(format, "fuzz.log", data)
	})
}

// Sink is a record.Sink that keeps what it is given.
type Sink struct {
	Events []record.Event
	Params []string
	// Experiments are the named experiments' (name, params)
	Experiments [][2]string
	Runs        []record.RunMeta
	Warnings    []*param.Error
	StepMs      float64
}

func (s *Sink) Event(e record.Event)     { s.Events = append(s.Events, e) }
func (s *Sink) Experiment(params string) { s.Params = append(s.Params, params) }
func (s *Sink) NamedExperiment(experiment, params string) {
	s.Experiments = append(s.Experiments, [2]string{experiment, params})
}
func (s *Sink) Run(r record.RunMeta) { s.Runs = append(s.Runs, r) }
func (s *Sink) Warn(w *param.Error)  { s.Warnings = append(s.Warnings, w) }
func (s *Sink) TimeStep(ms float64)  { s.StepMs = ms }

// Input is a record.Input over bytes in memory, under the ingest's
// default record cap.
type Input struct {
	Name string
	Data []byte
}

func (in *Input) Head() []byte       { return head(in.Data) }
func (in *Input) DetectName() string { return detectName(in.Name) }
func (in *Input) Reader() io.Reader  { return bytes.NewReader(in.Data) }
func (in *Input) All() ([]byte, error) {
	return in.Data, nil
}
func (in *Input) ReaderAt() (io.ReaderAt, int64, error) {
	return bytes.NewReader(in.Data), int64(len(in.Data)), nil
}
func (in *Input) Unlined()                 {}
func (in *Input) MaxRecord() int64         { return ingest.DefaultMaxRecord }
func (in *Input) MapRaw() *record.FieldSet { return nil }

// TextErr is nil: the decoder alone runs without the ingest's text check,
// which Run's bad cases go through.
func (in *Input) TextErr() error { return nil }

// Decode runs f's decoder alone over data, read as the file name, and
// renders its canonical rows as CSV: the staging columns of record.Schema,
// an empty cell where the file gave nothing.
func Decode(f record.Format, name string, data []byte) ([]byte, *Sink, error) {
	sink := &Sink{}
	p, err := f.Decode(&Input{Name: name, Data: data}, sink)
	if err != nil {
		return nil, sink, err
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	header := make([]string, 0, record.NumCols)
	for _, fd := range record.Schema.Fields() {
		header = append(header, fd.Name)
	}
	_ = w.Write(header)
	err = p(context.Background(), func(rb arrow.RecordBatch) error {
		defer rb.Release()
		if !rb.Schema().Equal(record.Schema) {
			return fmt.Errorf("a batch of another schema: %s", rb.Schema())
		}
		for i := range int(rb.NumRows()) {
			row := make([]string, rb.NumCols())
			for j, col := range rb.Columns() {
				row[j] = cell(col, i)
			}
			_ = w.Write(row)
		}
		return nil
	})
	w.Flush()
	return buf.Bytes(), sink, err
}

func cell(col arrow.Array, i int) string {
	if col.IsNull(i) {
		return ""
	}
	switch a := col.(type) {
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	default:
		return col.ValueStr(i)
	}
}

// decompressed is data gunzipped or un-zstd-ed when it is either, as the
// ingest reads it.
func decompressed(t *testing.T, data []byte) []byte {
	t.Helper()
	var r io.Reader
	var err error
	switch {
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		r, err = gzip.NewReader(bytes.NewReader(data))
	case bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		var d *zstd.Decoder
		d, err = zstd.NewReader(bytes.NewReader(data))
		if err == nil {
			defer d.Close()
			r = d
		}
	default:
		return data
	}
	if err == nil {
		data, err = io.ReadAll(r)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// head is what detection sees of data: its first 64 KiB.
func head(data []byte) []byte { return data[:min(len(data), 64<<10)] }

// detectName is a path without its compression extension, as detection
// sees it.
func detectName(path string) string {
	for _, ext := range []string{".gz", ".zst"} {
		path = strings.TrimSuffix(path, ext)
	}
	return path
}

// ownCases are the real cases of dir that the format reads itself: a case
// with a log-format.txt (and maybe a server.txt) is a server's log read
// with that format line (as the ingest's TestRealFiles reads it), by a
// format that takes one (record.Layouted), not by another.
func ownCases(t *testing.T, f record.Format, dir string) []string {
	t.Helper()
	_, layouted := f.(record.Layouted)
	var out []string
	for _, c := range cases(t, dir) {
		if _, err := os.Stat(filepath.Join(c, "log-format.txt")); err != nil || layouted {
			out = append(out, c)
		}
	}
	return out
}

func readIfExists(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func cases(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

func input(t *testing.T, dir string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "input*"))
	if len(m) != 1 {
		t.Fatalf("%s: want one input.* file, have %v", dir, m)
	}
	return m[0]
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// openDB is a fresh rewind database file holding one small canonical log,
// so a refused file can be seen to leave it as it was.
func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", filepath.Join(t.TempDir(), "t.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(queries.Schema); err != nil {
		t.Fatal(err)
	}
	seed := filepath.Join(t.TempDir(), "seed.ndjson")
	if err := os.WriteFile(seed, []byte(`{"run":"seed","req":1,"t_ms":0,"latency_ms":5,"outcome":"ok"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(context.Background(), db, ingest.Options{}, []string{seed}); err != nil {
		t.Fatal(err)
	}
	return db
}

// snapshot fingerprints every table.
func snapshot(t *testing.T, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, tbl := range []string{"files", "experiments", "runs", "requests", "events"} {
		var n int64
		var h sql.NullString
		q := `SELECT count(*), sum(hash(t::VARCHAR))::VARCHAR FROM ` + tbl + ` t`
		if tbl == "files" {
			q = `SELECT count(*), sum(hash(sha256))::VARCHAR FROM files`
		}
		if err := db.QueryRow(q).Scan(&n, &h); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s:%d:%s;", tbl, n, h.String)
	}
	return b.String()
}
