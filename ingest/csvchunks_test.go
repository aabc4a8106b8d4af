package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/ingest/record"
)

// A CSV file of many 4 MiB chunks ingests every record once, in file order
// (seq from 0, as one reader numbered them), with its line; a bad record
// deep in it is named by file:line:field and loads nothing.
func TestCSVAcrossChunks(t *testing.T) {
	db, _ := openDB(t)
	dir := t.TempDir()
	write := func(name string, bad int) string {
		var b strings.Builder
		b.WriteString("run,req,latency_ms,outcome,note\n")
		for i := 0; b.Len() < 3*record.ChunkBytes; i++ {
			lat := fmt.Sprintf("%d.5", i%1000)
			if i == bad {
				lat = "slow"
			}
			fmt.Fprintf(&b, "r%d,%d,%s,ok,\"%s\"\n", i%3, i, lat, strings.Repeat("x", i%97))
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mustIngest(t, db, Options{Experiment: "a"}, write("a.csv", -1))
	var n, wrong int64
	if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE seq <> req OR line <> req + 2 OR run <> 'r' || (req % 3)
		OR latency_ms <> (req % 1000) + 0.5 OR json_extract_string(attrs, '$.note') <> repeat('x', (req % 97)::INTEGER))
		FROM requests WHERE experiment = 'a'`).Scan(&n, &wrong); err != nil {
		t.Fatal(err)
	}
	if n < 100000 || wrong != 0 {
		t.Fatalf("%d rows, %d of them wrong", n, wrong)
	}
	_, err := Files(context.Background(), db, Options{Experiment: "b"}, []string{write("bad.csv", 123456)})
	if err == nil || !strings.Contains(err.Error(), "bad.csv:123458") || !strings.Contains(err.Error(), "latency_ms") {
		t.Fatalf("error %v, want bad.csv:123458 and latency_ms named", err)
	}
	var after int64
	if err := db.QueryRow(`SELECT count(*) FROM requests`).Scan(&after); err != nil || after != n {
		t.Fatalf("%d rows after the failed ingest (%v), want %d", after, err, n)
	}
}
