package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/rewind-dev/rewind/ingest/format/chaostoolkit"
	"github.com/rewind-dev/rewind/ingest/format/gunluk"
	"github.com/rewind-dev/rewind/ingest/format/har"
	"github.com/rewind-dev/rewind/ingest/format/traces"
	"github.com/rewind-dev/rewind/ingest/record"
)

// documentFormats read a file whole: the document cap applies to them.
var documentFormats = map[string]bool{har.Name: true, chaostoolkit.Name: true, traces.OTLPName: true, FormatJSON: true, gunluk.Name: true,
	traces.JaegerName: true, traces.ZipkinName: true}

const testCap = 64 << 10

// refusedAt ingests data as a file named name (format from, "" detected)
// under a 64 KiB record cap and wants an error containing want, with the
// database unchanged.
func refusedAt(t *testing.T, name string, data []byte, from, want string) {
	t.Helper()
	db, _ := openDB(t)
	before := snapshot(t, db)
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Files(context.Background(), db, Options{From: from, Run: "r", MaxRecord: testCap}, []string{path})
	if err == nil || !strings.Contains(flagged(err), want) {
		t.Fatalf("%s: got %v, want an error with %q", name, err, want)
	}
	if snapshot(t, db) != before {
		t.Errorf("%s: the database changed", name)
	}
}

// TestRecordCapEveryFormat: every format inherits the record cap from the
// input it reads, without code of its own: a line longer than the cap at
// line 3 of one real file per format fails there; a format read whole fails
// once the document passes 16 records' worth.
func TestRecordCapEveryFormat(t *testing.T) {
	seen := map[string]bool{}
	inputs, _ := filepath.Glob("testdata/real/*/*/input.*")
	inputs = append(inputs, "testdata/map/input.ndjson", "../fixtures/peaks/sekil1.csv", chaosFixture)
	for _, in := range inputs {
		data := readInput(t, in)
		from := filepath.Base(filepath.Dir(filepath.Dir(in)))
		switch in {
		case "testdata/map/input.ndjson":
			from = FormatNDJSON
		case "../fixtures/peaks/sekil1.csv":
			from = FormatCSV
		case chaosFixture:
			from = gunluk.Name
		}
		if !validFormat(from) || realFormat(filepath.Dir(in), from) != from {
			continue // a server's log read with its format line (server.txt) is clf, which clf's own case covers
		}
		if seen[from] || bytes.IndexByte(data, 0) >= 0 || strings.HasSuffix(in, ".binpb") {
			continue // one file per format; binary encodings have no lines
		}
		seen[from] = true
		t.Run(from, func(t *testing.T) {
			if documentFormats[from] {
				padded := append(data, bytes.Repeat([]byte(" "), 16*testCap)...)
				refusedAt(t, "big"+filepath.Ext(in), padded, from, "document larger than 1 MiB")
				return
			}
			lines := bytes.SplitAfterN(data, []byte("\n"), 3)
			at := min(len(lines), 2)
			var out []byte
			for _, l := range lines[:at] {
				out = append(out, l...)
			}
			line := bytes.Count(out, []byte("\n")) + 1
			out = append(out, bytes.Repeat([]byte("x"), testCap+1)...)
			out = append(append(out, '\n'), bytes.Join(lines[at:], nil)...)
			refusedAt(t, "long"+filepath.Ext(in), out, from, fmt.Sprintf(":%d: record longer than 64 KiB", line))
		})
	}
	if len(seen) < 12 {
		t.Errorf("only %d formats tried: %v", len(seen), seen)
	}
}

const okLine = `{"run":"a","req":1,"t_ms":1,"latency_ms":5,"outcome":"ok"}` + "\n"

// TestRecordCapCompressed: a bomb of one long line, gzip or zstd, fails at
// the cap, not after decompressing the whole line (4 GiB in a 134 KB .zst
// took 6 GB of memory).
func TestRecordCapCompressed(t *testing.T) {
	long := okLine + `{"run":"` + strings.Repeat("x", 8*testCap) + `"}` + "\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(long))
	zw.Close()
	refusedAt(t, "bomb.ndjson.gz", gz.Bytes(), "", "bomb.ndjson.gz:2: record longer than 64 KiB")
	enc, _ := zstd.NewWriter(nil)
	refusedAt(t, "bomb.ndjson.zst", enc.EncodeAll([]byte(long), nil), "", "bomb.ndjson.zst:2: record longer than 64 KiB")
}

// TestRecordCapCSVQuoted: a CSV record with quoted line breaks (a stray
// quote makes the rest of the file one) fails once longer than the cap and
// a chunk, at the line it starts.
func TestRecordCapCSVQuoted(t *testing.T) {
	defer func(n int) { record.ChunkBytes = n }(record.ChunkBytes)
	record.ChunkBytes = 16 << 10
	var b strings.Builder
	b.WriteString("run,req,t_ms,latency_ms,outcome\na,1,1,5,ok\na,2,2,5,\"")
	for b.Len() < 4*testCap {
		b.WriteString("short line inside a quoted field\n")
	}
	b.WriteString("\"\n")
	refusedAt(t, "stray-quote.csv", []byte(b.String()), "", "stray-quote.csv:3: record longer than 64 KiB")
}

// TestRatioGuard: a .zst that decompresses to more than DefaultMaxRatio
// times its size fails once past ratioFloor, even of blank lines.
func TestRatioGuard(t *testing.T) {
	defer func(n int64) { ratioFloor = n }(ratioFloor)
	ratioFloor = 4 << 20
	enc, _ := zstd.NewWriter(nil)
	data := enc.EncodeAll(append([]byte(okLine), bytes.Repeat([]byte("\n"), int(ratioFloor)+8<<20)...), nil)
	refusedAt(t, "blank.ndjson.zst", data, "", fmt.Sprintf("decompresses to more than %d times its size", DefaultMaxRatio))
}

// TestBlankLines: blank lines are passed over (a run of them in one loop),
// and lines after them keep their numbers.
func TestBlankLines(t *testing.T) {
	blank := strings.Repeat("\n", 1<<20) + strings.Repeat(" \r\n", 1000)
	in := okLine + blank + okLine + blank + `{"run":"a","req":3,"t_ms":1,"latency_ms":-1,"outcome":"ok"}` + "\n"
	refusedAt(t, "blank.ndjson", []byte(in), "", fmt.Sprintf("blank.ndjson:%d: field \"latency_ms\": negative -1", 3+2*(1<<20+1000)))
	db, _ := openDB(t)
	path := filepath.Join(t.TempDir(), "ok.ndjson")
	os.WriteFile(path, []byte(okLine+blank+okLine+blank), 0o644)
	if res := mustIngest(t, db, Options{}, path); res[0].Rows != 2 {
		t.Errorf("%d rows, want 2", res[0].Rows)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"64MiB": 64 << 20, "1GB": 1e9, "4096": 4096, "1 KiB": 1024} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1MiB", "1.5GB", "64 parsecs", "99999999999TiB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q): no error", bad)
		}
	}
}

// TestRecordCapXMLText: a JMeter XML text node of many short lines, which
// the line cap does not see, fails once it passes the record cap, at the
// line where the decoder stood.
func TestRecordCapXMLText(t *testing.T) {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\"?>\n<testResults version=\"1.2\">\n<httpSample t=\"1\" ts=\"1714557600000\" s=\"true\" lb=\"a\" rc=\"200\">\n<responseData>")
	for b.Len() < 4*testCap {
		b.WriteString("short line of a response body\n")
	}
	b.WriteString("</responseData>\n</httpSample>\n</testResults>\n")
	refusedAt(t, "body.jtl", []byte(b.String()), "", "a text or a tag longer than 65536 bytes (raise it with --max-record)")
}
