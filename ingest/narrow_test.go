package ingest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest/record"
)

// TestNarrowedInserts: a file whose later batches give columns its first
// does not (status from line 1001 on, user_id and a field kept in attrs
// from line 2001, a role on the last line) is inserted in several
// narrowed INSERTs, one more at each widening, and stores every row and
// column as the same file read in one chunk (one batch, one INSERT of all
// the columns it gives). A bad value in the third INSERT's rows loads
// nothing and names its line.
func TestNarrowedInserts(t *testing.T) {
	const rows = 3000
	file := func(bad int) string {
		var b strings.Builder
		for i := 1; i <= rows; i++ {
			fmt.Fprintf(&b, `{"run":"r%d","req":%d,"outcome":"ok","latency_ms":%d.5`, i%2, i, i%100)
			if i > 1000 {
				fmt.Fprintf(&b, `,"status":%d`, 200+i%3)
			}
			if i > 2000 {
				fmt.Fprintf(&b, `,"user_id":"u%d","k":%d`, i%7, i)
			}
			if i == bad {
				b.WriteString(`,"attempt":-1`)
			}
			if i == rows {
				b.WriteString(`,"role":"control"`)
			}
			b.WriteString("}\n")
		}
		return b.String()
	}
	path := writeFile(t, "wide.ndjson", file(0))
	stored := func(chunk int) []string {
		defer func(n int) { record.ChunkBytes = n }(record.ChunkBytes)
		record.ChunkBytes = chunk
		db, _ := openDB(t)
		mustIngest(t, db, Options{Experiment: "e"}, path)
		return queryStrings(t, db, `SELECT r::VARCHAR FROM requests r ORDER BY seq`)
	}
	whole, cut := stored(4<<20), stored(8<<10)
	if len(whole) != rows {
		t.Fatalf("%d rows, want %d", len(whole), rows)
	}
	if diff := cmp.Diff(whole, cut); diff != "" {
		t.Errorf("read in 8 KiB chunks (-one chunk +cut):\n%s", diff)
	}

	defer func(n int) { record.ChunkBytes = n }(record.ChunkBytes)
	record.ChunkBytes = 8 << 10
	db, _ := openDB(t)
	before := snapshot(t, db)
	_, err := Files(context.Background(), db, Options{Experiment: "e"}, []string{writeFile(t, "bad.ndjson", file(2500))})
	if err == nil || !strings.Contains(err.Error(), `:2500: field "attempt"`) {
		t.Fatalf("got %v, want the error of line 2500's attempt", err)
	}
	if after := snapshot(t, db); after != before {
		t.Errorf("the failed ingest changed the database:\n%s\n%s", before, after)
	}
}
