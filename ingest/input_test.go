package ingest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zstded(t *testing.T, b []byte) []byte {
	t.Helper()
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer zw.Close()
	return zw.EncodeAll(b, nil)
}

func writeBytes(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Compressed files give the rows of the plain file, detected by their magic
// bytes whatever their name.
func TestCompressed(t *testing.T) {
	want := []string{
		"r|1|0|0.0|12.5|ok|200|true|eu|1",
		"r|1|1|100.25|3.0|error|503|false|us|1",
		"r|2|0|250.0|-|timeout|-|false|-|1",
	}
	dir := t.TempDir()
	cases := map[string]struct {
		path, compression string
	}{
		"gzip":             {writeBytes(t, dir, "a.ndjson.gz", gzipped(t, []byte(sameNDJSON))), "gzip"},
		"zstd":             {writeBytes(t, dir, "b.ndjson.zst", zstded(t, []byte(sameNDJSON))), "zstd"},
		"gzip csv no ext":  {writeBytes(t, dir, "c.data", gzipped(t, []byte(sameCSV))), "gzip"},
		"zstd json array":  {writeBytes(t, dir, "d.json.zst", zstded(t, []byte(sameJSON))), "zstd"},
		"gzip, named .csv": {writeBytes(t, dir, "e.csv.gz", gzipped(t, []byte(sameCSV))), "gzip"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			db, _ := openDB(t)
			res := mustIngest(t, db, Options{Experiment: "x"}, c.path)
			if res[0].Compression != c.compression {
				t.Errorf("compression %q, want %q", res[0].Compression, c.compression)
			}
			got := queryStrings(t, db, `SELECT `+canonicalRow+` FROM requests ORDER BY seq`)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCorruptGzipNamesTheFile(t *testing.T) {
	gz := gzipped(t, []byte(strings.Repeat(sameNDJSON, 50)))
	gz = gz[:len(gz)/2]
	p := writeBytes(t, t.TempDir(), "cut.ndjson.gz", gz)
	db, _ := openDB(t)
	before := snapshot(t, db)
	_, err := Files(context.Background(), db, Options{}, []string{p})
	if err == nil || !strings.HasPrefix(err.Error(), p) {
		t.Fatalf("error %v, want one naming %s", err, p)
	}
	if snapshot(t, db) != before {
		t.Error("database changed")
	}
}

// Standard input is read once; the same content piped again is a repeat,
// found after decoding, whose rows are taken out again.
func TestStdin(t *testing.T) {
	db, _ := openDB(t)
	opts := Options{Stdin: strings.NewReader(sameNDJSON), Experiment: "piped"}
	res := mustIngest(t, db, opts, Stdin)
	if res[0].Rows != 3 || res[0].Format != FormatNDJSON || res[0].Path != "stdin-1" {
		t.Fatalf("result %+v", res[0])
	}
	before := snapshot(t, db)
	opts.Stdin = strings.NewReader(sameNDJSON)
	again := mustIngest(t, db, opts, Stdin)
	if !again[0].Skipped || again[0].Rows != 3 {
		t.Errorf("second pipe: %+v, want skipped with 3 rows", again[0])
	}
	if snapshot(t, db) != before {
		t.Error("a repeated pipe changed the database")
	}
	opts.Stdin = bytes.NewReader(gzipped(t, []byte(sameCSV)))
	opts.Experiment = "piped-csv"
	if res := mustIngest(t, db, opts, Stdin); res[0].Format != FormatCSV || res[0].Compression != "gzip" {
		t.Errorf("gzip CSV on stdin: %+v", res[0])
	}
}

// A folder loads what it recognises and names what it skipped; hidden
// files are left out.
func TestFolderAndGlob(t *testing.T) {
	dir := t.TempDir()
	writeBytes(t, dir, "runs/a.ndjson", []byte(`{"run":"a","req":1,"outcome":"ok"}`+"\n"))
	writeBytes(t, dir, "runs/sub/b.csv", []byte("run,req,outcome\nb,1,error\n"))
	writeBytes(t, dir, "runs/notes.txt", []byte("just some notes\n"))
	writeBytes(t, dir, "runs/.hidden.ndjson", []byte("not json at all\n"))
	db, _ := openDB(t)
	res := mustIngest(t, db, Options{}, filepath.Join(dir, "runs"))
	var got []string
	for _, r := range res {
		rel, _ := filepath.Rel(dir, r.Path)
		got = append(got, rel+" "+r.Format+" "+said(r.Why))
	}
	want := []string{"runs/a.ndjson ndjson ", "runs/notes.txt  format not recognised", "runs/sub/b.csv csv "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	db2, _ := openDB(t)
	res = mustIngest(t, db2, Options{}, filepath.Join(dir, "runs", "*.ndjson"))
	if len(res) != 1 || res[0].Rows != 1 {
		t.Errorf("glob: %+v", res)
	}
	if _, err := Files(context.Background(), db2, Options{}, []string{filepath.Join(dir, "nothing-*.ndjson")}); err == nil ||
		!strings.Contains(err.Error(), "no file matches") {
		t.Errorf("empty glob: %v", err)
	}
	if err := CheckArgs([]string{filepath.Join(dir, "missing.ndjson")}); err == nil {
		t.Error("CheckArgs accepted a missing file")
	}
}

// --experiment gathers files as runs named from the files; times from ts
// are relative to the experiment's earliest ts, to the microsecond, so two
// runs recorded together keep their relative timing, whatever the order
// of ingest.
func TestFilesAsRunsShareTheOrigin(t *testing.T) {
	dir := t.TempDir()
	base := writeBytes(t, dir, "baseline.ndjson", []byte(
		`{"ts":"2026-05-01T10:00:01.000000Z","outcome":"ok"}`+"\n"+
			`{"ts":"2026-05-01T10:00:01.210853Z","outcome":"ok"}`+"\n"))
	chaos := writeBytes(t, dir, "chaos.ndjson.gz", gzipped(t, []byte(
		`{"ts":"2026-05-01T10:00:00.500000Z","outcome":"error","status":503}`+"\n")))
	want := []string{"baseline|500.0", "baseline|710.853", "chaos|0.0"}
	for _, order := range [][]string{{base, chaos}, {chaos, base}} {
		db, _ := openDB(t)
		for _, p := range order { // one ingest each: the origin moves with the second
			mustIngest(t, db, Options{Experiment: "exp"}, p)
		}
		got := queryStrings(t, db, `SELECT run || '|' || t_ms FROM requests ORDER BY run, t_ms`)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ingest order %v: (-want +got):\n%s", order, diff)
		}
		origins := queryStrings(t, db, `SELECT DISTINCT t_origin::VARCHAR FROM files`)
		if diff := cmp.Diff([]string{"2026-05-01 10:00:00.5"}, origins); diff != "" {
			t.Errorf("t_origin (-want +got):\n%s", diff)
		}
	}
}

func TestOutcomeFromStatus(t *testing.T) {
	log := `{"run":"a","status":200}
{"run":"a","status":302}
{"run":"a","status":404}
{"run":"a","status":0}
{"run":"a","status":503,"outcome":"ok"}
`
	for _, c := range []struct {
		okStatus string
		want     []string
	}{
		{"", []string{"200 ok", "302 ok", "404 error", "0 error", "503 ok"}},
		{"200-299,404", []string{"200 ok", "302 error", "404 ok", "0 error", "503 ok"}},
	} {
		db, _ := openDB(t)
		mustIngest(t, db, Options{OkStatus: c.okStatus}, writeFile(t, "s.ndjson", log))
		got := queryStrings(t, db, `SELECT status || ' ' || outcome FROM requests ORDER BY seq`)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("--ok-status %q (-want +got):\n%s", c.okStatus, diff)
		}
	}
	if _, err := parseStatusRanges("200-x"); err == nil {
		t.Error("bad --ok-status accepted")
	}
}

// Outcome values outside the known set load, but are reported with counts.
func TestUnknownOutcomesAreReported(t *testing.T) {
	db, _ := openDB(t)
	res := mustIngest(t, db, Options{}, writeFile(t, "o.csv", "run,outcome\ncontrol,true\ncontrol,true\ncontrol,false\ncontrol,ok\n"))
	want := []string{`outcome values outside ok, error, timeout, dropped, rejected, canceled count as not ok: "true" ×2, "false" ×1 (map them with --map outcome=EXPR)`}
	if diff := cmp.Diff(want, saidAll(res[0].Warnings...)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestMap(t *testing.T) {
	csv := "label,elapsed,success,code,started\nhome,12.5,true,200,2026-05-01T10:00:00.25Z\nhome,30,false,500,2026-05-01T10:00:01Z\n"
	db, _ := openDB(t)
	maps := []Mapping{{"run", "label"}, {"latency_ms", "elapsed"},
		{"outcome", "CASE WHEN success THEN 'ok' ELSE 'error' END"}, {"status", "code"}, {"ts", "started::TIMESTAMP"}}
	mustIngest(t, db, Options{Maps: maps}, writeFile(t, "m.csv", csv))
	got := queryStrings(t, db, `SELECT concat_ws('|', run, latency_ms, outcome, status, t_ms) FROM requests ORDER BY seq`)
	want := []string{"home|12.5|ok|200|0.0", "home|30.0|error|500|750.0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mapped rows (-want +got):\n%s", diff)
	}

	for _, c := range []struct {
		m    Mapping
		want string
	}{
		{Mapping{"latency_ms", "elapsd"}, `bad.csv: --map latency_ms=elapsd: Binder Error: Referenced column "elapsd" not found`},
		{Mapping{"latency_ms", "label"}, `bad.csv:2: field "latency_ms": --map gives "home", not a DOUBLE`},
		{Mapping{"latency_ms", "-elapsed"}, `bad.csv:2: field "latency_ms": --map gives "-12.5", out of range`},
	} {
		db, _ := openDB(t)
		before := snapshot(t, db)
		p := writeFile(t, "bad.csv", csv)
		_, err := Files(context.Background(), db, Options{Run: "r", Maps: []Mapping{{"outcome", "'ok'"}, c.m}}, []string{p})
		if err == nil {
			t.Errorf("--map %v: no error", c.m)
			continue
		}
		got := strings.ReplaceAll(flagged(err), filepath.Dir(p)+string(filepath.Separator), "")
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("--map %v:\n got %q\nwant %q…", c.m, got, c.want)
		}
		if snapshot(t, db) != before {
			t.Errorf("--map %v: database changed", c.m)
		}
	}
	if _, err := ParseMap("seq=1"); err == nil {
		t.Error("ParseMap accepted seq")
	}
}

// A file modified in place after its ingest is refused, unless --replace
// (the old rows go) or --append (both stay).
func TestChangedFile(t *testing.T) {
	dir := t.TempDir()
	p := writeBytes(t, dir, "live.ndjson", []byte(`{"run":"a","req":1,"outcome":"ok"}`+"\n"))
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, p)
	writeBytes(t, dir, "live.ndjson", []byte(`{"run":"a","req":1,"outcome":"error"}`+"\n"+`{"run":"a","req":2,"outcome":"ok"}`+"\n"))
	before := snapshot(t, db)
	_, err := Files(context.Background(), db, Options{}, []string{p})
	if err == nil || !strings.Contains(err.Error(), "ingested before with other content (experiment live, 1 rows") {
		t.Fatalf("error %v", err)
	}
	if snapshot(t, db) != before {
		t.Error("refused ingest changed the database")
	}
	mustIngest(t, db, Options{Replace: true}, p)
	if got := queryStrings(t, db, `SELECT req || outcome FROM requests ORDER BY seq`); !cmp.Equal(got, []string{"1error", "2ok"}) {
		t.Errorf("after --replace: %v", got)
	}
	writeBytes(t, dir, "live.ndjson", []byte(`{"run":"a","req":3,"outcome":"ok"}`+"\n"))
	mustIngest(t, db, Options{Append: true}, p)
	if got := queryStrings(t, db, `SELECT req || outcome FROM requests ORDER BY seq`); !cmp.Equal(got, []string{"1error", "2ok", "3ok"}) {
		t.Errorf("after --append: %v", got)
	}
}

func TestResolution(t *testing.T) {
	for _, c := range []struct {
		log  string
		want float64
	}{
		{`{"run":"a","outcome":"ok","ts":"2026-05-01T10:00:00Z"}` + "\n" + `{"run":"a","outcome":"ok","ts":"2026-05-01T10:00:03Z"}`, 1000},
		{`{"run":"a","outcome":"ok","t_ms":100}` + "\n" + `{"run":"a","outcome":"ok","t_ms":300}`, 100},
		{`{"run":"a","outcome":"ok","t_ms":1}` + "\n" + `{"run":"a","outcome":"ok","t_ms":2.5}`, 0.001},
		{`{"run":"a","outcome":"ok"}`, 0},
	} {
		db, _ := openDB(t)
		res := mustIngest(t, db, Options{}, writeFile(t, "r.ndjson", c.log+"\n"))
		if res[0].ResolutionMs != c.want {
			t.Errorf("%s: resolution %v ms, want %v", c.log, res[0].ResolutionMs, c.want)
		}
	}
}

// --set on a file ingested before stores the parameter and says so.
func TestSetOnRepeatSaysWhatItDid(t *testing.T) {
	db, _ := openDB(t)
	p := writeFile(t, "a.ndjson", `{"run":"a","outcome":"ok"}`+"\n")
	mustIngest(t, db, Options{}, p)
	res := mustIngest(t, db, Options{Params: map[string]string{"window": "10"}}, p)
	if said(res[0].Why) != "already ingested; --set stored with experiment a" {
		t.Errorf("why: %q", res[0].Why)
	}
	db2, _ := openDB(t)
	if res := mustIngest(t, db2, Options{}, p, p); res[0].Skipped || said(res[1].Why) != "named twice: loaded once, above" || res[1].Rows != 1 {
		t.Errorf("the same path twice: %+v", res)
	}
	if got := queryStrings(t, db, `SELECT params->>'window' FROM experiments`); !cmp.Equal(got, []string{"10"}) {
		t.Errorf("params: %v", got)
	}
}

func TestRoles(t *testing.T) {
	dir := t.TempDir()
	a := writeBytes(t, dir, "baseline.ndjson", []byte(`{"outcome":"ok"}`+"\n"))
	b := writeBytes(t, dir, "chaos.ndjson", []byte(`{"outcome":"error"}`+"\n"))
	db, _ := openDB(t)
	mustIngest(t, db, Options{Experiment: "e", Roles: map[string]string{"baseline": "control", "chaos": "experiment"}}, a, b)
	got := queryStrings(t, db, `SELECT r.run || ' ' || r.role || ' ' || q.role FROM runs r JOIN requests q USING (experiment, run) ORDER BY 1`)
	if diff := cmp.Diff([]string{"baseline control control", "chaos experiment experiment"}, got); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
}

// A file of a folder that cannot be opened by the time it is read (removed
// by a log rotation, or another user's) is skipped and named; the folder's
// other files load.
func TestFolderSkipsUnreadable(t *testing.T) {
	dir := t.TempDir()
	writeBytes(t, dir, "runs/a.ndjson", []byte(`{"run":"a","req":1,"outcome":"ok"}`+"\n"))
	writeBytes(t, dir, "runs/b.ndjson", []byte(`{"run":"b","req":1,"outcome":"ok"}`+"\n"))
	srcs, err := expand([]string{filepath.Join(dir, "runs")})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "runs", "b.ndjson")); err != nil {
		t.Fatal(err)
	}
	db, _ := openDB(t)
	ok, _ := parseStatusRanges(DefaultOkStatus)
	res, err := ingestSources(context.Background(), db, Options{}, ok, srcs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Rows != 1 || !res[1].Skipped || said(res[1].Why) != "cannot be read: stat: no such file or directory" {
		t.Errorf("results %+v", res)
	}
	// named by the user, the same file is an error
	if _, err := Files(context.Background(), db, Options{}, []string{filepath.Join(dir, "runs", "b.ndjson")}); err == nil {
		t.Error("a missing file named on the command line loaded")
	}
}

// A folder's FIFO, link and looping link are named as skipped, not passed
// over in silence (nor read: a FIFO would block).
func TestFolderNamesSpecialEntries(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	writeBytes(t, filepath.Dir(dir), "runs/a.ndjson", []byte(`{"run":"a","req":1,"outcome":"ok"}`+"\n"))
	if err := syscall.Mkfifo(filepath.Join(dir, "b.fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"c.link": "a.ndjson", "d.loop": "d.loop", "e.gone": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	db, _ := openDB(t)
	res, err := Files(context.Background(), db, Options{}, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res {
		got = append(got, filepath.Base(r.Path)+": "+map[bool]string{true: said(r.Why), false: fmt.Sprint(r.Rows, " rows")}[r.Skipped])
	}
	want := []string{"a.ndjson: 1 rows", "b.fifo: a named pipe (FIFO), not a file",
		"c.link: a link; links in a folder are not followed (name its target to read it)",
		"d.loop: a link that leads nowhere (a loop or a missing target); links in a folder are not followed",
		"e.gone: a link that leads nowhere (a loop or a missing target); links in a folder are not followed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
