package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMapRefused runs the cases under testdata/map: each folder's map is a
// --map argument and error the text its refusal must contain (empty: the
// mapping is allowed). A refused mapping changes nothing, in the database
// or on disk: an attack used to COPY a file out before the ingest failed.
func TestMapRefused(t *testing.T) {
	input, err := filepath.Abs("testdata/map/input.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	base, err := filepath.Abs(chaosFixture)
	if err != nil {
		t.Fatal(err)
	}
	maps, _ := filepath.Glob("testdata/map/*/map")
	if len(maps) == 0 {
		t.Fatal("no cases under testdata/map")
	}
	for _, mapFile := range maps {
		dir := filepath.Dir(mapFile)
		arg, want := readCase(t, dir, "map"), readCase(t, dir, "error")
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Chdir(t.TempDir())
			db, _ := openDB(t)
			mustIngest(t, db, Options{}, base)
			before := snapshot(t, db)
			m, err := ParseMap(arg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Files(context.Background(), db, Options{Maps: []Mapping{m}}, []string{input})
			switch {
			case want == "" && err != nil:
				t.Fatalf("--map %s: %v, want it allowed", arg, err)
			case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
				t.Fatalf("--map %s: got %v, want an error with %q", arg, err, want)
			}
			if want != "" && snapshot(t, db) != before {
				t.Errorf("the database changed")
			}
			if left, _ := filepath.Glob("*"); len(left) > 0 {
				t.Errorf("files written: %v", left)
			}
		})
	}
}

func readCase(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestMapSandboxed: an evaluated mapping runs with the instance's file
// access closed, so even a function the allow-list let through could not
// read a file.
func TestMapSandboxed(t *testing.T) {
	db, _ := openDB(t)
	m, _ := ParseMap("latency_ms=elapsed")
	mustIngest(t, db, Options{Maps: []Mapping{m}}, "testdata/map/input.ndjson")
	var n int64
	err := db.QueryRow(`SELECT count(*) FROM read_text('testdata/map/input.ndjson')`).Scan(&n)
	if err == nil || !strings.Contains(err.Error(), "disabled by configuration") {
		t.Errorf("read_text after a mapped ingest: %d, %v; want it refused", n, err)
	}
	var sum float64
	if err := db.QueryRow(`SELECT sum(latency_ms) FROM requests`).Scan(&sum); err != nil || sum != 15 {
		t.Errorf("mapped latency sum %v, %v; want 15", sum, err)
	}
}

// FuzzMap: any --map expression is refused or evaluated, never crashes the
// process, and never leaves a file behind. One database serves every input
// (each a new file, so none is skipped as already ingested).
func FuzzMap(f *testing.F) {
	dirs, _ := filepath.Glob("testdata/map/*/map")
	for _, d := range dirs {
		b, _ := os.ReadFile(d)
		_, expr, _ := strings.Cut(strings.TrimSpace(string(b)), "=")
		f.Add(expr)
	}
	f.Add("CASE WHEN elapsed > 7 THEN elapsed * 2 ELSE NULL END")
	work := f.TempDir()
	db, err := sql.Open("duckdb", filepath.Join(f.TempDir(), "t.duckdb"))
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	n := 0
	f.Fuzz(func(t *testing.T, expr string) {
		m, err := ParseMap("latency_ms=" + expr)
		if err != nil {
			return
		}
		n++
		input := filepath.Join(work, fmt.Sprintf("in%d.ndjson", n))
		line := fmt.Sprintf(`{"run":"a","req":%d,"t_ms":1,"latency_ms":5,"outcome":"ok","elapsed":7,"name":"x"}`, n)
		if err := os.WriteFile(input, []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Chdir(t.TempDir())
		_, _ = Files(context.Background(), db, Options{Maps: []Mapping{m}}, []string{input})
		if left, _ := filepath.Glob("*"); len(left) > 0 {
			t.Errorf("--map %q wrote %v", expr, left)
		}
	})
}

// A mapped value longer than the record cap is refused at its row's line,
// naming {max-record}.
func TestMapValueCap(t *testing.T) {
	db, _ := openDB(t)
	path := writeFile(t, "a.ndjson", `{"run":"a","req":1,"t_ms":1,"outcome":"ok","name":"x"}
{"run":"a","req":2,"t_ms":2,"outcome":"ok","name":"`+strings.Repeat("y", 100)+`"}
`)
	m, err := ParseMap("run=repeat(name, 16)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Files(context.Background(), db, Options{Maps: []Mapping{m}, MaxRecord: 1024}, []string{path})
	if want := path + `:2: field "run": map gives a value of 1600 bytes, longer than 1 KiB, the record cap (max-record)`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
