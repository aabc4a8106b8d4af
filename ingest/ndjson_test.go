package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest/record"
)

// writeChunked writes an NDJSON file of rows lines that spans several
// decode chunks: each line names its own line number (req) and carries
// a text of varying length, so lines straddle the chunk cuts, and a few
// lines are longer than the carry's slack.
func writeChunked(t *testing.T, path string, rows int, bad int) {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= rows; i++ {
		pad := strings.Repeat("x", i%97)
		if i%50000 == 0 {
			pad = strings.Repeat("y", 3*record.CarrySlack)
		}
		if i == bad {
			fmt.Fprintf(&b, `{"run":"r%d","req":%d,"outcome":"ok","latency_ms":"slow","note":"%s"}`+"\n", i%3, i, pad)
			continue
		}
		fmt.Fprintf(&b, `{"run":"r%d","req":%d,"outcome":"ok","latency_ms":%d.5,"note":"%s"}`+"\n", i%3, i, i%1000, pad)
	}
	if b.Len() < 3*record.ChunkBytes {
		t.Fatalf("the file is %d bytes: not several chunks", b.Len())
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNDJSONAcrossChunks: a file of many decode chunks loads every line
// once, in file order, with its own line number and content, also when a
// second file reuses the first one's chunk buffers; a bad line deep in the
// file is named by its line and loads nothing.
func TestNDJSONAcrossChunks(t *testing.T) {
	db, _ := openDB(t)
	dir := t.TempDir()
	const rows = 200000
	a, b, bad := filepath.Join(dir, "a.ndjson"), filepath.Join(dir, "b.ndjson"), filepath.Join(dir, "bad.ndjson")
	writeChunked(t, a, rows, 0)
	writeChunked(t, b, rows, 0)
	mustIngest(t, db, Options{Experiment: "a"}, a)
	mustIngest(t, db, Options{Experiment: "b"}, b)
	for _, exp := range []string{"a", "b"} {
		var n, wrong, misordered int64
		err := db.QueryRow(`SELECT count(*),
			count(*) FILTER (WHERE line <> req OR run <> 'r' || (req % 3) OR latency_ms <> (req % 1000) + 0.5
			                 OR json_extract_string(attrs, '$.note') <> CASE WHEN req % 50000 = 0 THEN repeat('y', $2) ELSE repeat('x', (req % 97)::INTEGER) END),
			count(*) FILTER (WHERE seq - min_seq <> req - 1)
			FROM (SELECT *, min(seq) OVER () AS min_seq FROM requests WHERE experiment = $1)`, exp, 3*record.CarrySlack).Scan(&n, &wrong, &misordered)
		if err != nil {
			t.Fatal(err)
		}
		if n != rows || wrong != 0 || misordered != 0 {
			t.Errorf("experiment %s: %d rows (want %d), %d with the wrong content or line, %d out of file order", exp, n, rows, wrong, misordered)
		}
	}
	before := snapshot(t, db)
	writeChunked(t, bad, rows, 123457)
	_, err := Files(context.Background(), db, Options{Experiment: "bad"}, []string{bad})
	if err == nil || !strings.Contains(err.Error(), "bad.ndjson:123457") || !strings.Contains(err.Error(), "latency_ms") {
		t.Fatalf("got %v, want an error naming bad.ndjson:123457 and latency_ms", err)
	}
	if after := snapshot(t, db); after != before {
		t.Error("the failed ingest changed the database")
	}
}

// TestNDJSONPrettyStream: objects that span lines (jq's output of an NDJSON
// log, one pretty-printed record) are read as a stream of documents, with
// run and event records too; an error names the line where its record
// starts.
func TestNDJSONPrettyStream(t *testing.T) {
	const pretty = "{\n  \"run\": \"r\",\n  \"req\": 1,\n  \"latency_ms\": 2.5,\n  \"outcome\": \"ok\"\n}\n" +
		"{\"record\": \"event\", \"run\": \"r\", \"type\": \"fault\", \"t_ms\": 5}\n\n" +
		"{\n  \"run\": \"r\", \"req\": 2,\n  \"outcome\": \"error\"\n}\n"
	db, _ := openDB(t)
	res := mustIngest(t, db, Options{}, writeFile(t, "p.ndjson", pretty))
	if res[0].Format != FormatNDJSON || res[0].Rows != 2 || res[0].Events != 1 {
		t.Fatalf("result %+v: want ndjson, 2 rows, 1 event", res[0])
	}
	got := queryStrings(t, db, `SELECT concat_ws(' ', run, req, coalesce(latency_ms::VARCHAR, '-'), outcome, line) FROM requests ORDER BY seq`)
	if diff := cmp.Diff([]string{"r 1 2.5 ok 1", "r 2 - error 9"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for body, want := range map[string]string{
		pretty + "{\n  \"run\": \"r\",\n  \"latency_ms\": \"x\",\n  \"outcome\": \"ok\"\n}\n": `b.ndjson:13: field "latency_ms": not a number "x"`,
		pretty + "[1]\n":                  `b.ndjson:13: bad JSON: want an object starting with '{', got "[1]"`,
		pretty + "{\n  \"run\": \"r\",\n": `b.ndjson:13: bad JSON: unexpected end of file (truncated?)`,
		"{\n  \"run\": \"r\" \"x\"\n}\n":  `b.ndjson:1: bad JSON: invalid character '"' after object key:value pair`,
	} {
		db, _ := openDB(t)
		before := snapshot(t, db)
		_, err := Files(context.Background(), db, Options{}, []string{writeFile(t, "b.ndjson", body)})
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("got %v, want …%s", err, want)
		}
		if snapshot(t, db) != before {
			t.Error("a failed ingest changed the database")
		}
	}
}
