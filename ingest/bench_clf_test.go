package ingest

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"
)

// Text access log benchmarks: rewind's clf adapter against DuckDB's own
// read_csv with a regex split into the same columns, on one generated
// nginx log (combined + $request_time $upstream_response_time), durable.
// bench/clf.sh runs them at REWIND_BENCH_ROWS lines and prints the ratio.

// benchCLFFile writes n nginx lines once per process.
func benchCLFFile(b *testing.B, n int) string {
	return benchOnce(b, fmt.Sprintf("rewind-bench-%d.access.log", n), func(w *bufio.Writer) {
		t0 := time.Date(2026, 12, 2, 17, 0, 0, 0, time.FixedZone("", 3*3600))
		statuses := []int{200, 200, 200, 200, 201, 304, 404, 500, 502, 503}
		for i := 0; i < n; i++ {
			ts := t0.Add(time.Duration(i/50) * time.Second).Format(clfTime)
			urt := fmt.Sprintf("0.%03d", i%200)
			if i%7 == 0 {
				urt = "0.000, " + urt
			}
			fmt.Fprintf(w, `10.0.%d.%d - - [%s] "GET /api/items/%d?page=%d HTTP/1.1" %d %d "https://example.com/p/%d" "Mozilla/5.0 (X11; Linux x86_64) bench/%d" %d.%03d %s`+"\n",
				i%256, i%97, ts, i%5000, i%9, statuses[i%10], 100+i%4000, i%300, i%13, i%3, i%1000, urt)
		}
	})
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
