package ingest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/ab"
	"github.com/rewind-dev/rewind/ingest/format/jmeter"
	"github.com/rewind-dev/rewind/ingest/format/k6"
	"github.com/rewind-dev/rewind/ingest/format/locust"
	"github.com/rewind-dev/rewind/ingest/format/vegeta"
	"github.com/rewind-dev/rewind/ingest/record"
)

// quotedBomb is a quoted CSV field of many short lines, 4 times the test
// cap: no line passes the line cap, the record does.
func quotedBomb() string {
	var b strings.Builder
	b.WriteString(`"`)
	for b.Len() < 4*testCap {
		b.WriteString("short line inside a quoted field\n")
	}
	b.WriteString(`"`)
	return b.String()
}

// TestRecordCapOneCSVReader: every format that reads a file with one
// csv.Reader refuses a record of quoted line breaks longer than the cap,
// at the line the record starts and naming the field it is in, with the
// database unchanged. Each file is a real one's first record(s) and then a
// copy of its first record whose third field is the bomb.
func TestRecordCapOneCSVReader(t *testing.T) {
	for _, c := range []struct {
		from, path string
		keep       int    // lines kept before the bomb record
		comma      string // the delimiter
		field      string // the third column's name
	}{
		{jmeter.Name, "testdata/real/jmeter/csv-webtours/input.jtl", 2, ",", "label"},
		{jmeter.Name, "testdata/real/jmeter/csv-webtours-no-header/input.jtl", 1, ",", "label"},
		{k6.CSVName, "testdata/real/k6-csv/groups-checks/input.csv", 2, ",", "metric_value"},
		{locust.Name, "testdata/real/locust/full-history/input.csv", 2, ",", "Type"},
		{ab.Name, "testdata/real/ab/nginx-limit-rate/input.tsv", 2, "\t", "ctime"},
		{vegeta.Name, "testdata/real/vegeta/csv-ratelimiter/input.csv", 1, ",", "latency"},
	} {
		t.Run(c.from+"/"+c.path, func(t *testing.T) {
			lines := bytes.SplitAfter(readInput(t, c.path), []byte("\n"))
			first := strings.TrimRight(string(lines[c.keep-1]), "\r\n")
			cells := strings.Split(first, c.comma)
			cells[2] = quotedBomb()
			data := append(bytes.Join(lines[:c.keep], nil), strings.Join(cells, c.comma)+"\n"...)
			data = append(data, bytes.Join(lines[c.keep:], nil)...)
			want := fmt.Sprintf("bomb.csv:%d: field %q: record longer than 64 KiB", c.keep+1, c.field)
			refusedAt(t, "bomb.csv", data, c.from, want)
		})
	}
}

// TestRecordCapCSVFallback: a canonical CSV whose header runs past the
// first chunk is read by one csv.Reader; its records are capped the same.
func TestRecordCapCSVFallback(t *testing.T) {
	defer func(n int) { record.ChunkBytes = n }(record.ChunkBytes)
	record.ChunkBytes = 16 << 10
	header := "run,req,latency_ms,t_ms,outcome," + strings.Repeat("x", 2*record.ChunkBytes) + "\n"
	data := header + "a,1,5,1,ok,\na,2," + quotedBomb() + ",2,ok,\n"
	refusedAt(t, "wide.csv", []byte(data), "", `wide.csv:3: field "latency_ms": record longer than 64 KiB`)
}
