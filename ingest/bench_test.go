package ingest

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/clf"
)

// Ingest benchmarks: rewind's path (Go decode → Arrow batches → DuckDB's
// Arrow scan, one transaction, durable) against DuckDB's own read_json on the
// same file. Rows come from REWIND_BENCH_ROWS (default 1,000,000); bench/ingest.sh
// runs 1 M to 10 M and prints the table the README quotes.

func benchRows() int {
	if n, err := strconv.Atoi(os.Getenv("REWIND_BENCH_ROWS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// benchFile writes n canonical rows once per process.
func benchFile(b *testing.B, n int) string {
	return benchOnce(b, fmt.Sprintf("rewind-bench-%d.ndjson", n), func(w *bufio.Writer) { writeBenchRows(w, n) })
}

// benchOnce writes a generated file under name in the temp dir, once per
// process (a later benchmark reuses it).
func benchOnce(b *testing.B, name string, write func(w *bufio.Writer)) string {
	b.Helper()
	path := filepath.Join(os.TempDir(), name)
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		return path
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	write(w)
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

func writeBenchRows(w *bufio.Writer, n int) {
	outcomes := []string{"ok", "ok", "ok", "error", "timeout"}
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, `{"run":"r%d","req":%d,"attempt":%d,"t_ms":%d.5,"latency_ms":%d.25,"outcome":"%s","tagged":%t}`+"\n",
			i%4, i/3, i%3, i*10, i%977, outcomes[i%5], i%20 == 0)
	}
}

func freshDB(b *testing.B) *sql.DB {
	b.Helper()
	db, err := sql.Open("duckdb", filepath.Join(b.TempDir(), fmt.Sprintf("b%d.duckdb", b.N)))
	if err != nil {
		b.Fatal(err)
	}
	if err := ensureSchema(db); err != nil {
		b.Fatal(err)
	}
	return db
}

// benchLoad times load on a fresh database per iteration and reports rows/s.
func benchLoad(b *testing.B, setup func(db *sql.DB) error, load func(db *sql.DB, path string) error) {
	n := benchRows()
	benchLoadFile(b, benchFile(b, n), n, setup, load)
}

func execAll(db *sql.DB, qs ...string) error {
	for _, q := range qs {
		if _, err := db.Exec(q); err != nil {
			return err
		}
	}
	return nil
}

func BenchmarkIngestNDJSON(b *testing.B) {
	want := int64(benchRows())
	benchLoad(b, nil, func(db *sql.DB, path string) error {
		res, err := Files(context.Background(), db, Options{}, []string{path})
		if err == nil && res[0].Rows != want {
			err = fmt.Errorf("ingested %d rows, want %d", res[0].Rows, want)
		}
		return err
	})
}

func BenchmarkDuckDBReadJSON(b *testing.B) {
	benchLoad(b, nil, func(db *sql.DB, path string) error {
		return execAll(db, "SET preserve_insertion_order = false",
			"CREATE TABLE r AS SELECT * FROM read_json('"+path+"', format = 'newline_delimited')")
	})
}

// BenchmarkDuckDBReadJSONToRequests loads the same file with read_json into
// rewind's 22-column requests table (the width rewind writes), without
// what the Arrow path adds: no line numbers, no file order, no validation
// with file:line:field errors, unknown fields dropped, no run_pos.
func BenchmarkDuckDBReadJSONToRequests(b *testing.B) {
	benchLoad(b, nil, func(db *sql.DB, path string) error {
		return execAll(db, "SET preserve_insertion_order = false",
			`INSERT INTO requests SELECT 'bench', run, '', 0, req, NULL, attempt, t_ms, NULL, latency_ms, outcome, NULL,
				tagged, NULL, NULL, NULL, NULL, NULL, 1, NULL, 1, 0, NULL
			 FROM read_json('`+path+`', format = 'newline_delimited')`)
	})
}

// BenchmarkDecodeOnly decodes the NDJSON and CLF benchmarks' files through
// the checks every ingest runs (decodeOnly: validation, required columns),
// with no database: the Go side of BenchmarkIngestNDJSON and
// BenchmarkIngestCLF, to set beside their wall time and the floor's.
func BenchmarkDecodeOnly(b *testing.B) {
	n := benchRows()
	for _, c := range []struct{ format, path string }{{"ndjson", benchFile(b, n)}, {clf.Name, benchCLFFile(b, n)}} {
		data, err := os.ReadFile(c.path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.format, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				if err := decodeOnly(c.format, data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
