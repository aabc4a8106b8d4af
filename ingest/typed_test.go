package ingest

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rewind-dev/rewind/internal/golden"
)

// arrowFile writes one batch of the given columns (3 rows each) as an Arrow
// IPC file; run and outcome are added.
func arrowFile(t *testing.T, path string, fields []arrow.Field, fill func(b *array.RecordBuilder)) string {
	t.Helper()
	fields = append([]arrow.Field{{Name: "run", Type: arrow.BinaryTypes.String}, {Name: "outcome", Type: arrow.BinaryTypes.String}}, fields...)
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"r", "r", "r"}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"ok", "ok", "ok"}, nil)
	fill(b)
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Parquet and Arrow reject the values the text formats reject, naming the
// bad row (not the first row of its batch).
func TestTypedRejectsLikeText(t *testing.T) {
	dir := t.TempDir()
	f64 := func(name string, v ...float64) ([]arrow.Field, func(*array.RecordBuilder)) {
		return []arrow.Field{{Name: name, Type: arrow.PrimitiveTypes.Float64}}, func(b *array.RecordBuilder) {
			b.Field(2).(*array.Float64Builder).AppendValues(v, nil)
		}
	}
	i64 := func(name string, v ...int64) ([]arrow.Field, func(*array.RecordBuilder)) {
		return []arrow.Field{{Name: name, Type: arrow.PrimitiveTypes.Int64}}, func(b *array.RecordBuilder) {
			b.Field(2).(*array.Int64Builder).AppendValues(v, nil)
		}
	}
	str := func(name string, v ...string) ([]arrow.Field, func(*array.RecordBuilder)) {
		return []arrow.Field{{Name: name, Type: arrow.BinaryTypes.String}}, func(b *array.RecordBuilder) {
			b.Field(2).(*array.StringBuilder).AppendValues(v, nil)
		}
	}
	cases := []struct {
		name   string
		fields []arrow.Field
		fill   func(*array.RecordBuilder)
		want   string
	}{}
	add := func(name, want string, fields []arrow.Field, fill func(*array.RecordBuilder)) {
		cases = append(cases, struct {
			name   string
			fields []arrow.Field
			fill   func(*array.RecordBuilder)
			want   string
		}{name, fields, fill, want})
	}
	fl, fi := f64("latency_ms", 1, math.NaN(), 2)
	add("nan-latency", `:2: field "latency_ms": not a number NaN`, fl, fi)
	fl, fi = f64("t_ms", 1, 2, math.Inf(1))
	add("inf-t_ms", `:3: field "t_ms": not a number +Inf`, fl, fi)
	fl, fi = i64("count", 1, 1, -4)
	add("negative-count", `:3: field "count": out of range -4 (want 0..1000000000000)`, fl, fi)
	fl, fi = i64("count", 1, 1<<62, 1)
	add("huge-count", `:2: field "count": out of range 4611686018427387904 (want 0..1000000000000)`, fl, fi)
	fl, fi = i64("status", 200, 200, -1)
	add("negative-status", `:3: field "status": out of range -1 (want 0..999)`, fl, fi)
	fl, fi = i64("status", 200, 200, 3_000_000_000)
	add("status-overflow", `:3: field "status": cannot convert int64 value "3000000000" to int32`, fl, fi)
	fl, fi = i64("attempt", 0, -1, 0)
	add("negative-attempt", `:2: field "attempt": out of range -1 (want 0..2147483647)`, fl, fi)
	fl, fi = str("user_id", "a", "b\xffc", "d")
	add("invalid-utf8", `:2: field "user_id": invalid UTF-8`, fl, fi)
	add("duplicate-column", `: field "latency_ms": column given twice`,
		[]arrow.Field{{Name: "latency_ms", Type: arrow.PrimitiveTypes.Float64}, {Name: "latency_ms", Type: arrow.PrimitiveTypes.Float64}},
		func(b *array.RecordBuilder) {
			b.Field(2).(*array.Float64Builder).AppendValues([]float64{1, 2, 3}, nil)
			b.Field(3).(*array.Float64Builder).AppendValues([]float64{1, 2, 3}, nil)
		})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := arrowFile(t, filepath.Join(dir, c.name+".arrow"), c.fields, c.fill)
			db, _ := openDB(t)
			before := snapshot(t, db)
			_, err := Files(context.Background(), db, Options{}, []string{p})
			if err == nil || err.Error() != p+c.want {
				t.Errorf("error %v, want %q", err, p+c.want)
			}
			if snapshot(t, db) != before {
				t.Error("database changed")
			}
		})
	}
}

// Byte-mutated Arrow and Parquet files fail with an error or load; the
// process never crashes (a SIGSEGV in DuckDB's Arrow scan would end the
// test binary) and a failed ingest leaves the database unchanged.
func TestMutatedTypedFiles(t *testing.T) {
	dir := t.TempDir()
	db, _ := openDB(t)
	arrowPath := writeArrowIPC(t, filepath.Join(dir, "good.arrow"))
	pq := filepath.Join(dir, "good.parquet")
	if _, err := db.Exec(`COPY (SELECT 'r' AS run, i AS req, 'ok' AS outcome, i * 1.5 AS latency_ms, 'x' || i AS region
		FROM range(50) t(i)) TO '` + pq + `' (FORMAT parquet)`); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 150 // REWIND_MUTATIONS=5000 for a long run
	if v, err := strconv.Atoi(os.Getenv("REWIND_MUTATIONS")); err == nil {
		n = v
	}
	for _, src := range []string{arrowPath, pq} {
		good, _ := os.ReadFile(src)
		for i := 0; i < n; i++ {
			bad := bytes.Clone(good)
			for k := 0; k < 1+rng.IntN(4); k++ {
				bad[rng.IntN(len(bad))] = byte(rng.IntN(256))
			}
			p := filepath.Join(dir, "m"+filepath.Ext(src))
			if err := os.WriteFile(p, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, db)
			_, err := Files(context.Background(), db, Options{Experiment: "m" + strings.Repeat("x", i%3)}, []string{p})
			if err != nil && snapshot(t, db) != before {
				t.Fatalf("%s mutation %d: failed ingest changed the database", src, i)
			}
			if err == nil {
				if _, err := db.Exec(`DELETE FROM requests; DELETE FROM files; DELETE FROM runs; DELETE FROM experiments`); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// With -update, the seeds of FuzzArrow and FuzzParquet are written anew.
func TestFuzzSeeds(t *testing.T) {
	if !golden.Updating() {
		for _, p := range []string{"testdata/fuzz-seeds/small.arrow", "testdata/fuzz-seeds/small.parquet"} {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("fuzz seed missing: %v (go test -run TestFuzzSeeds -update writes it)", err)
			}
		}
		return
	}
	writeArrowIPC(t, "testdata/fuzz-seeds/small.arrow")
	db, _ := openDB(t)
	if _, err := db.Exec(`COPY (SELECT 'r' AS run, i AS req, 'ok' AS outcome, i * 1.5 AS latency_ms, 'x' || i AS region
		FROM range(20) t(i)) TO 'testdata/fuzz-seeds/small.parquet' (FORMAT parquet)`); err != nil {
		t.Fatal(err)
	}
}
