package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"
)

// The same three attempts in every format rewind reads.
const sameNDJSON = `{"run":"r","req":1,"attempt":0,"t_ms":0,"latency_ms":12.5,"outcome":"OK","status":200,"tagged":true,"region":"eu"}
{"run":"r","req":1,"attempt":1,"t_ms":100.25,"latency_ms":3,"outcome":"error","status":503,"tagged":false,"region":"us"}
{"run":"r","req":2,"attempt":0,"t_ms":250,"outcome":"timeout","tagged":false}
`

const sameJSON = `[{"run":"r","req":1,"attempt":0,"t_ms":0,"latency_ms":12.5,"outcome":"OK","status":200,"tagged":true,"region":"eu"},
 {"run":"r","req":1,"attempt":1,"t_ms":100.25,"latency_ms":3,"outcome":"error","status":503,"tagged":false,"region":"us"},
 {"run":"r","req":2,"attempt":0,"t_ms":250,"outcome":"timeout","tagged":false}]`

const sameCSV = `run,req,attempt,t_ms,latency_ms,outcome,status,tagged,region
r,1,0,0,12.5,OK,200,true,eu
r,1,1,100.25,3,error,503,false,us
r,2,0,250,,timeout,,false,
`

const canonicalRow = `run || '|' || req || '|' || attempt || '|' || t_ms || '|' || coalesce(latency_ms::VARCHAR, '-') || '|' ||
	outcome || '|' || coalesce(status::VARCHAR, '-') || '|' || tagged || '|' || coalesce(attrs->>'region', '-') || '|' || count`

func TestFormatsAgree(t *testing.T) {
	want := []string{
		"r|1|0|0.0|12.5|ok|200|true|eu|1",
		"r|1|1|100.25|3.0|error|503|false|us|1",
		"r|2|0|250.0|-|timeout|-|false|-|1",
	}
	dir := t.TempDir()
	files := map[string]string{
		"n.ndjson": sameNDJSON, "j.json": sameJSON, "c.csv": sameCSV,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db, _ := openDB(t)
	// Parquet written by DuckDB itself from the NDJSON rows.
	pq := filepath.Join(dir, "p.parquet")
	if _, err := db.Exec(`COPY (SELECT run, req, attempt, t_ms, latency_ms, outcome, status, tagged, region
		FROM read_json('` + filepath.Join(dir, "n.ndjson") + `') ) TO '` + pq + `' (FORMAT parquet)`); err != nil {
		t.Fatal(err)
	}
	arrowFile := writeArrowIPC(t, filepath.Join(dir, "a.arrow"))
	for _, name := range []string{"n.ndjson", "j.json", "c.csv", "p.parquet", "a.arrow"} {
		path := filepath.Join(dir, name)
		if name == "a.arrow" {
			path = arrowFile
		}
		t.Run(name, func(t *testing.T) {
			mustIngest(t, db, Options{Experiment: name}, path)
			got := queryStrings(t, db, `SELECT `+canonicalRow+` FROM requests WHERE experiment = ? ORDER BY seq`, name)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func writeArrowIPC(t *testing.T, path string) string {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "run", Type: arrow.BinaryTypes.String},
		{Name: "req", Type: arrow.PrimitiveTypes.Int32},
		{Name: "attempt", Type: arrow.PrimitiveTypes.Int64},
		{Name: "t_ms", Type: arrow.PrimitiveTypes.Float64},
		{Name: "latency_ms", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "outcome", Type: arrow.BinaryTypes.String},
		{Name: "status", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "tagged", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"r", "r", "r"}, nil)
	b.Field(1).(*array.Int32Builder).AppendValues([]int32{1, 1, 2}, nil)
	b.Field(2).(*array.Int64Builder).AppendValues([]int64{0, 1, 0}, nil)
	b.Field(3).(*array.Float64Builder).AppendValues([]float64{0, 100.25, 250}, nil)
	b.Field(4).(*array.Float32Builder).AppendValues([]float32{12.5, 3, 0}, []bool{true, true, false})
	b.Field(5).(*array.StringBuilder).AppendValues([]string{"OK", "error", "timeout"}, nil)
	b.Field(6).(*array.Int16Builder).AppendValues([]int16{200, 503, 0}, []bool{true, true, false})
	b.Field(7).(*array.BooleanBuilder).AppendValues([]bool{true, false, false}, nil)
	b.Field(8).(*array.StringBuilder).AppendValues([]string{"eu", "us", ""}, []bool{true, true, false})
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func TestDerivedColumns(t *testing.T) {
	db, _ := openDB(t)
	log := `{"record":"experiment","params":{"window":2}}
{"record":"run","run":"base","role":"control","params":{"rate":5}}
{"run":"base","req":"alpha","outcome":"ok","ts":"2026-01-02T03:04:05.000Z"}
{"run":"base","req":"beta","outcome":"ok","ts":"2026-01-02T03:04:05.250Z"}
{"run":"base","req":"alpha","attempt":1,"outcome":"error","ts":"2026-01-02T03:04:06Z"}
{"run":"free","outcome":"ok"}
{"run":"free","outcome":"ok","attrs":{"k":1}}
{"record":"event","run":"base","type":"restart","subject":3,"state":"stuck","t_ms":5,"attrs":{"round":2}}
`
	path := writeFile(t, "derived.ndjson", log)
	res := mustIngest(t, db, Options{}, path)
	if res[0].Rows != 5 || res[0].Events != 1 || res[0].Experiment != "derived" {
		t.Fatalf("result %+v", res[0])
	}
	got := queryStrings(t, db, `SELECT run || '|' || role || '|' || req || '|' || coalesce(req_text, '-') || '|' || coalesce(t_ms::VARCHAR, '-')
		|| '|' || coalesce(attrs::VARCHAR, '-') FROM requests ORDER BY seq`)
	want := []string{
		"base|control|-1|alpha|0.0|-", "base|control|-2|beta|250.0|-", "base|control|-1|alpha|1000.0|-",
		"free||0|-|-|-", `free||1|-|-|{"k":1}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	meta := queryStrings(t, db, `SELECT experiment || '|' || run || '|' || role || '|' || coalesce(params::VARCHAR, '-') FROM runs ORDER BY run`)
	if diff := cmp.Diff([]string{`derived|base|control|{"rate":5}`, "derived|free||-"}, meta); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	ev := queryStrings(t, db, `SELECT run || '|' || type || '|' || subject || '|' || state || '|' || t_ms || '|' || attrs::VARCHAR FROM events`)
	if diff := cmp.Diff([]string{`base|restart|3|stuck|5.0|{"round":2}`}, ev); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// An Arrow view left in the file crashes later readers; none may remain.
func TestNoViewLeftBehind(t *testing.T) {
	db, path := openDB(t)
	mustIngest(t, db, Options{}, chaosFixture)
	if _, err := Files(context.Background(), db, Options{}, []string{"testdata/bad/bad-latency/input.ndjson"}); err == nil {
		t.Fatal("want an error")
	}
	db.Close()
	db2, err := sqlOpen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	views := queryStrings(t, db2, `SELECT view_name FROM duckdb_views() WHERE NOT internal`)
	if len(views) != 0 {
		t.Errorf("views left in the file: %v", views)
	}
	if n := queryStrings(t, db2, `SELECT count(*)::VARCHAR FROM requests`); n[0] != "800" {
		t.Errorf("requests after reopen: %v", n)
	}
}

func TestTypedFormatErrors(t *testing.T) {
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, chaosFixture)
	before := snapshot(t, db)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.parquet")
	if _, err := db.Exec(`COPY (SELECT * FROM (VALUES ('r', 1, 'ok', '12'), ('r', 2, 'ok', '12x')) v(run, req, outcome, latency_ms))
		TO '` + bad + `' (FORMAT parquet)`); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.parquet")
	if err := os.WriteFile(cut, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	arrowCut := filepath.Join(dir, "cut.arrow")
	full, _ := os.ReadFile(writeArrowIPC(t, filepath.Join(dir, "full.arrow")))
	if err := os.WriteFile(arrowCut, full[:len(full)-40], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{bad, bad + `:2: field "latency_ms": cannot convert utf8 value "12x" to float64`},
		{cut, cut + ": bad Parquet file: "},
		{arrowCut, arrowCut + ": bad Arrow IPC file: "},
	} {
		_, err := Files(context.Background(), db, Options{}, []string{c.path})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ingest %s: error %v, want prefix %q", filepath.Base(c.path), err, c.want)
		}
	}
	if after := snapshot(t, db); after != before {
		t.Error("a failed ingest changed the database")
	}
}
