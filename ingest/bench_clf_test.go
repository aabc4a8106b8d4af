package ingest

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/rewind-dev/rewind/internal/benchlog"
)

// Text access log benchmarks: rewind's clf adapter against DuckDB's own
// read_csv with a regex split into the same columns, on one generated
// nginx log (combined + $request_time $upstream_response_time), durable.
// bench/clf.sh runs them at REWIND_BENCH_ROWS lines and prints the ratio.

// benchCLFFile writes n nginx lines (internal/benchlog) once per process.
func benchCLFFile(b *testing.B, n int) string {
	return benchOnce(b, fmt.Sprintf("rewind-bench-%d.access.log", n), func(w *bufio.Writer) { benchlog.WriteCLFLines(w, n) })
}

func benchLoadFile(b *testing.B, path string, n int, setup func(db *sql.DB) error, load func(db *sql.DB, path string) error) {
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db := freshDB(b)
		if setup != nil {
			if err := setup(db); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if err := load(db, path); err != nil {
			b.Fatal(err)
		}
		if _, err := db.Exec("CHECKPOINT"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkIngestCLF(b *testing.B) {
	n := benchRows()
	path := benchCLFFile(b, n)
	benchLoadFile(b, path, n, nil, func(db *sql.DB, path string) error {
		res, err := Files(context.Background(), db, Options{}, []string{path})
		if err == nil && res[0].Rows != int64(n) {
			err = fmt.Errorf("ingested %d rows, want %d", res[0].Rows, n)
		}
		return err
	})
}

// clfRegex splits a combined line with nginx's two timing fields, as a
// user of DuckDB alone would.
const clfRegex = `^(\S+) \S+ (\S+) \[([^\]]+)\] "(\S+) (\S+) (\S+)" (\d{3}) (\S+) "([^"]*)" "([^"]*)" (\S+) (.*)$`

// BenchmarkDuckDBRegexCLF loads the same log with read_csv (one column per
// line) and regexp_extract into rewind's requests table: the start time
// from the end less the request time, the latency in ms, the other fields
// in attrs; no line numbers, no file:line errors, no detection.
func BenchmarkDuckDBRegexCLF(b *testing.B) {
	n := benchRows()
	path := benchCLFFile(b, n)
	benchLoadFile(b, path, n, nil, func(db *sql.DB, path string) error {
		return execAll(db, "SET preserve_insertion_order = false",
			`INSERT INTO requests SELECT 'bench', 'bench', '', 0, NULL, NULL, 0, NULL,
				strptime(m.t, '%d/%b/%Y:%H:%M:%S %z')::TIMESTAMP - to_microseconds(round(m.rt::DECIMAL(18,3) * 1000000)::BIGINT),
				m.rt::DECIMAL(18,3) * 1000, CASE WHEN m.status::INTEGER BETWEEN 200 AND 399 THEN 'ok' ELSE 'error' END, m.status::INTEGER,
				false, NULL, NULL, NULL, NULL, NULL, 1,
				json_object('remote_addr', m.ip, 'remote_user', m.u, 'time_local', m.t, 'method', m.method, 'path', m.path, 'protocol', m.proto,
					'body_bytes_sent', m.bytes, 'http_referer', m.ref, 'http_user_agent', m.ua, 'upstream_response_time', m.urt),
				1, 0, NULL
			 FROM (SELECT regexp_extract(line, '`+clfRegex+`', ['ip', 'u', 't', 'method', 'path', 'proto', 'status', 'bytes', 'ref', 'ua', 'rt', 'urt']) AS m
			       FROM read_csv('`+path+`', columns = {'line': 'VARCHAR'}, header = false, delim = '\t', quote = '', escape = '', auto_detect = false))`)
	})
}
