package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rewindIn runs one command in-process and returns its exit code and output.
func rewindIn(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// chaosDB ingests the chaos fixture into dir/rewind.duckdb.
func chaosDB(t *testing.T, dir string) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "rewind.duckdb")
	mustRewind(t, "ingest", "-q", "--db", db, filepath.Join(root, "fixtures", "chaos", "gunluk.json"))
	return db
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// unchanged runs a command that must fail with want in stderr and leave
// path's bytes as they were.
func unchanged(t *testing.T, path, want string, args ...string) {
	t.Helper()
	before := mustRead(t, path)
	code, _, stderr := rewindIn(args...)
	if code != exitError || !strings.Contains(stderr, want) {
		t.Errorf("rewind %s: exit %d, stderr %q; want exit 1 with %q", strings.Join(args, " "), code, stderr, want)
	}
	if !bytes.Equal(before, mustRead(t, path)) {
		t.Errorf("rewind %s changed %s", strings.Join(args, " "), path)
	}
}

// TestReportOntoDatabase: report --html onto the database used to replace
// it with HTML and exit 0. It is refused and the file keeps its bytes, also
// when the database is named through a symlink or with --force.
func TestReportOntoDatabase(t *testing.T) {
	dir := t.TempDir()
	db := chaosDB(t, dir)
	link := filepath.Join(dir, "page.html")
	if err := os.Symlink(db, link); err != nil {
		t.Fatal(err)
	}
	unchanged(t, db, "is the database", "report", "--db", db, "--html", db)
	unchanged(t, db, "is the database", "report", "--db", db, "--html", link, "--force")
	mustRewind(t, "sql", "--db", db, "SELECT count(*) FROM requests")
}

// TestReportOntoInput: a FILE argument is an input; --html onto it is
// refused before anything is ingested.
func TestReportOntoInput(t *testing.T) {
	dir := t.TempDir()
	root, _ := filepath.Abs("../..")
	log := filepath.Join(dir, "gunluk.json")
	if err := os.WriteFile(log, mustRead(t, filepath.Join(root, "fixtures", "chaos", "gunluk.json")), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "r.duckdb")
	unchanged(t, log, "is an input of this report", "report", "--db", db, "--html", log, "--force", log)
	if _, err := os.Stat(db); err == nil {
		t.Errorf("the refused report created %s", db)
	}
}

// TestReportHTMLToStdout: --html - writes the page to stdout.
func TestReportHTMLToStdout(t *testing.T) {
	db := chaosDB(t, t.TempDir())
	code, stdout, stderr := rewindIn("report", "--db", db, "--html", "-")
	if code != exitOK || !htmlPage.ours([]byte(stdout)) || !strings.HasSuffix(stdout, "</html>\n") {
		t.Errorf("exit %d, stderr %q; stdout starts %.80q", code, stderr, stdout)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Errorf("wrote a file named -")
	}
}

// TestReportForce: an existing file rewind did not write is kept; --force
// replaces it; a page rewind wrote is replaced without --force.
func TestReportForce(t *testing.T) {
	dir := t.TempDir()
	db := chaosDB(t, dir)
	page := filepath.Join(dir, "notes.html")
	if err := os.WriteFile(page, []byte("<!DOCTYPE html><p>my notes</p>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unchanged(t, page, "exists and is not an HTML page rewind wrote", "report", "--db", db, "--html", page)
	mustRewind(t, "report", "--db", db, "--html", page, "--force")
	first := mustRead(t, page)
	if !htmlPage.ours(first) {
		t.Fatalf("--force did not write the report")
	}
	mustRewind(t, "report", "--db", db, "--html", page)
	if !bytes.Equal(first, mustRead(t, page)) {
		t.Errorf("a second report of the same database differs")
	}
}

// TestNotebookOntoSource: notebook nb.md -o nb.md used to overwrite its own
// source. It is refused, with or without --force, and so is the database.
func TestNotebookOntoSource(t *testing.T) {
	dir := t.TempDir()
	db := chaosDB(t, dir)
	root, _ := filepath.Abs("../..")
	nb := filepath.Join(dir, "nb.md")
	if err := os.WriteFile(nb, mustRead(t, filepath.Join(root, "fixtures", "notebooks", "chaos.md")), 0o644); err != nil {
		t.Fatal(err)
	}
	unchanged(t, nb, "is the notebook being run", "notebook", "--db", db, nb, "-o", nb)
	unchanged(t, nb, "is the notebook being run", "notebook", "--db", db, nb, "-o", nb, "--force")
	dbAsMD := filepath.Join(dir, "db.md")
	if err := os.Link(db, dbAsMD); err != nil {
		t.Fatal(err)
	}
	unchanged(t, db, "is the database", "notebook", "--db", db, nb, "-o", dbAsMD, "--force")
}

// TestNotebookOutputs: a markdown output carries the marker and is replaced
// by the next run; stdout gets the same markdown without it; another
// existing file needs --force.
func TestNotebookOutputs(t *testing.T) {
	dir := t.TempDir()
	db := chaosDB(t, dir)
	root, _ := filepath.Abs("../..")
	nb := filepath.Join(root, "fixtures", "notebooks", "chaos.md")
	out := filepath.Join(dir, "out.md")
	mustRewind(t, "notebook", "--db", db, nb, "-o", out)
	mustRewind(t, "notebook", "--db", db, nb, "-o", out)
	stdout := mustRewind(t, "notebook", "--db", db, nb, "-o", "-")
	if got := string(mustRead(t, out)); got != notebookMarker+stdout {
		t.Errorf("the file is not the marker line and the markdown of stdout:\n%.200s", got)
	}
	mine := filepath.Join(dir, "mine.md")
	if err := os.WriteFile(mine, []byte("# my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unchanged(t, mine, "exists and is not a markdown file rewind notebook wrote", "notebook", "--db", db, nb, "-o", mine)
	mustRewind(t, "notebook", "--db", db, nb, "-o", mine, "--force")
	if !notebookMarkdown.ours(mustRead(t, mine)) {
		t.Errorf("--force did not write the notebook")
	}
}

// TestOutputFailureKeepsOld: a notebook whose cell fails leaves the earlier
// output as it was (outputs are written whole or not at all).
func TestOutputFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	db := chaosDB(t, dir)
	nb := filepath.Join(dir, "nb.md")
	out := filepath.Join(dir, "nb.html")
	if err := os.WriteFile(nb, []byte("# t\n\n```sql\nSELECT 1 AS one\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRewind(t, "notebook", "--db", db, nb, "-o", out)
	if err := os.WriteFile(nb, []byte("# t\n\n```sql\nSELECT nope\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unchanged(t, out, "nb.md:3", "notebook", "--db", db, nb, "-o", out)
	if left, _ := filepath.Glob(filepath.Join(dir, ".nb.html.tmp-*")); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}
