package csv

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rewind-dev/rewind/ingest/record"
)

// benchRows is REWIND_BENCH_ROWS (default 1,000,000), as the ingest's
// benchmarks read it.
func benchRows() int {
	if n, err := strconv.Atoi(os.Getenv("REWIND_BENCH_ROWS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// BenchmarkDecodeCSV decodes the same CSV (decode only, no DuckDB) in
// chunks on every core and with one csv.Reader, the anchor, side by side.
func BenchmarkDecodeCSV(b *testing.B) {
	n := benchRows()
	var sb strings.Builder
	sb.WriteString("run,req,attempt,t_ms,latency_ms,outcome,tagged\n")
	outcomes := []string{"ok", "ok", "ok", "error", "timeout"}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "r%d,%d,%d,%d.5,%d.25,%s,%t\n", i%4, i/3, i%3, i*10, i%977, outcomes[i%5], i%20 == 0)
	}
	data := sb.String()
	for _, c := range []struct {
		name string
		dec  func(io.Reader) record.Produce
	}{{"chunks", func(r io.Reader) record.Produce { return decodeCSV(r, record.DefaultMaxRecord, nil) }}, {"one-reader", func(r io.Reader) record.Produce { return decodeCSVRecords(r, 0, nil) }}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				rows := 0
				err := c.dec(strings.NewReader(data))(context.Background(), func(rb arrow.RecordBatch) error {
					rows += int(rb.NumRows())
					rb.Release()
					return nil
				})
				if err != nil || rows != n {
					b.Fatalf("%d rows, %v", rows, err)
				}
			}
		})
	}
}
