package dataset

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/store"
)

// convertGroups converts each group into the dataset ds, as one
// conversion each.
func convertGroups(t *testing.T, ds string, groups []ingestGroup) [][]ingest.Result {
	t.Helper()
	var all [][]ingest.Result
	for _, g := range groups {
		res, err := Convert(context.Background(), ds, g.files, ConvertOptions{Ingest: g.opts})
		if err != nil {
			t.Fatalf("convert %v: %v", g.files, err)
		}
		all = append(all, res)
	}
	return all
}

// loadInto loads ds into a new database file and returns it open.
func loadInto(t *testing.T, ds, path string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), path, store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), db, ds); err != nil {
		db.Close()
		t.Fatal(err)
	}
	return db
}

// sameNamedFiles are two files of one name in two folders: the second's
// experiment takes a suffix, as in a database.
func sameNamedFiles(t *testing.T) []ingestGroup {
	dir := t.TempDir()
	var out []ingestGroup
	for i, sub := range []string{"a", "b"} {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
		p := filepath.Join(dir, sub, "results.ndjson")
		os.WriteFile(p, []byte(strings.Repeat(`{"run":"r","latency_ms":1,"outcome":"ok","t_ms":`+string(rune('1'+i))+"}\n", 2+i)), 0o644)
		out = append(out, ingestGroup{ingest.Options{}, []string{p}})
	}
	return out
}

// TestConvertEqualsIngest converts the fixtures group by group into a
// dataset and ingests them the same way into a database: the dataset,
// loaded, equals the database in every table (but the time of ingest), and
// says what ingest says.
func TestConvertEqualsIngest(t *testing.T) {
	dir := t.TempDir()
	groups := append(fixtureGroups(t), sameNamedFiles(t)...)
	groups = append(groups, groups[0]) // a repeat: nothing to do
	src := filepath.Join(dir, "src.duckdb")
	ingestInto(t, src, groups)
	ds := filepath.Join(dir, "ds")
	results := convertGroups(t, ds, groups)
	last := results[len(results)-1]
	if len(last) != 1 || !last[0].Skipped {
		t.Errorf("the repeat: %+v, want skipped", last)
	}
	named := results[len(results)-2]
	if len(named) != 1 || named[0].Experiment != "results-2" || len(named[0].Warnings) != 1 {
		t.Errorf("the second results.ndjson: %+v, want experiment results-2 and a warning", named)
	}
	db := loadInto(t, ds, filepath.Join(dir, "dst.duckdb"))
	defer db.Close()
	compareTablesExcept(t, db, src, names(), map[string]string{"files": "ingested_at"})
}

// TestConvertRefusesJoin: rows that name a run another file's rows hold
// are refused as in a database, and nothing is written; --append joins.
func TestConvertRefusesJoin(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.ndjson"), filepath.Join(dir, "b.ndjson")
	os.WriteFile(a, []byte(`{"experiment":"x","run":"r","t_ms":1,"latency_ms":1,"outcome":"ok"}
{"experiment":"x","run":"r","t_ms":2,"latency_ms":1,"outcome":"ok"}
`), 0o644)
	os.WriteFile(b, []byte(`{"experiment":"x","run":"r","t_ms":3,"latency_ms":1,"outcome":"error"}
`), 0o644)
	ds := filepath.Join(dir, "ds")
	convertGroups(t, ds, []ingestGroup{{ingest.Options{}, []string{a}}})
	before := partFiles(t, ds)
	_, err := Convert(context.Background(), ds, []string{b}, ConvertOptions{})
	if err == nil || !strings.Contains(err.Error(), "its rows name run r of experiment x, which holds 2 rows of "+a) {
		t.Fatalf("err %v, want the join refused", err)
	}
	if after := partFiles(t, ds); !slices.Equal(before, after) {
		t.Errorf("a refused conversion changed the dataset:\n%v\n%v", before, after)
	}
	convertGroups(t, ds, []ingestGroup{{ingest.Options{Append: true}, []string{b}}})
	src := filepath.Join(dir, "src.duckdb")
	ingestInto(t, src, []ingestGroup{{ingest.Options{}, []string{a}}, {ingest.Options{Append: true}, []string{b}}})
	db := loadInto(t, ds, filepath.Join(dir, "dst.duckdb"))
	defer db.Close()
	compareTablesExcept(t, db, src, names(), map[string]string{"files": "ingested_at"})
}

// partFiles lists every file under ds but the manifest.
func partFiles(t *testing.T, ds string) []string {
	t.Helper()
	var out []string
	filepath.Walk(ds, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && filepath.Base(p) != Manifest {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestConvertAddsParams: a file that stores an experiment's parameters,
// converted after another file of that experiment, adds them (the
// experiment's rows are merged), as ingest would; one that would change a
// stored value is refused.
func TestConvertAddsParams(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.ndjson"), filepath.Join(dir, "b.ndjson"), filepath.Join(dir, "c.ndjson")
	os.WriteFile(a, []byte(`{"run":"x","t_ms":1,"latency_ms":1,"outcome":"ok"}`+"\n"), 0o644)
	os.WriteFile(b, []byte(`{"record":"experiment","params":{"window":40}}`+"\n"+`{"run":"y","t_ms":1,"latency_ms":1,"outcome":"ok"}`+"\n"), 0o644)
	os.WriteFile(c, []byte(`{"record":"experiment","params":{"window":50}}`+"\n"+`{"run":"z","t_ms":1,"latency_ms":1,"outcome":"ok"}`+"\n"), 0o644)
	groups := []ingestGroup{{ingest.Options{Experiment: "bench"}, []string{a}}, {ingest.Options{Experiment: "bench"}, []string{b}}}
	ds := filepath.Join(dir, "ds")
	convertGroups(t, ds, groups)
	_, err := Convert(context.Background(), ds, []string{c}, ConvertOptions{Ingest: ingest.Options{Experiment: "bench"}})
	if err == nil || !strings.Contains(err.Error(), "experiment bench has stored window = 40 in the dataset") {
		t.Errorf("err %v, want the changed window refused", err)
	}
	src := filepath.Join(dir, "src.duckdb")
	ingestInto(t, src, groups)
	db := loadInto(t, ds, filepath.Join(dir, "dst.duckdb"))
	defer db.Close()
	compareTablesExcept(t, db, src, names(), map[string]string{"files": "ingested_at"})
}

// TestConvertStdin: standard input converts as a file does (named
// stdin-1), also when the conversion is done again with the full seed (its
// rows join a run with --append).
func TestConvertStdin(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.ndjson")
	os.WriteFile(a, []byte(`{"experiment":"x","run":"r","t_ms":1,"latency_ms":1,"outcome":"ok"}`+"\n"), 0o644)
	in := `{"experiment":"x","run":"r","t_ms":2,"latency_ms":1,"outcome":"error"}` + "\n"
	groups := func() []ingestGroup {
		return []ingestGroup{{ingest.Options{}, []string{a}}, {ingest.Options{Append: true, Stdin: strings.NewReader(in)}, []string{"-"}}}
	}
	ds := filepath.Join(dir, "ds")
	res := convertGroups(t, ds, groups())
	if r := res[1]; len(r) != 1 || r[0].Path != "stdin-1" || r[0].Rows != 1 {
		t.Errorf("standard input: %+v", r)
	}
	src := filepath.Join(dir, "src.duckdb")
	ingestInto(t, src, groups())
	db := loadInto(t, ds, filepath.Join(dir, "dst.duckdb"))
	defer db.Close()
	compareTablesExcept(t, db, src, names(), map[string]string{"files": "ingested_at"})
}
