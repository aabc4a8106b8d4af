package notebook

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/golden"
	"github.com/rewind-dev/rewind/report"

	_ "github.com/duckdb/duckdb-go/v2"
)

// openDB gives each test its own in-memory database.
func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// render runs a notebook from testdata and returns its output.
func render(t *testing.T, db *sql.DB, file string, f Format, opts Options) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Render(context.Background(), db, file, src, &buf, f, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// inlineAssets matches the page's inline styles and scripts other than the
// data block: they are report's and uPlot's, tested there, and would
// make this golden change with every library upgrade.
var inlineAssets = regexp.MustCompile(`(?s)<style>.*?</style>|<script>.*?</script>`)

func TestMarkdownGolden(t *testing.T) {
	golden.Check(t, "testdata/walkthrough.out.md", render(t, openDB(t), "walkthrough.md", Markdown, Options{}))
}

func TestHTMLGolden(t *testing.T) {
	page := render(t, openDB(t), "walkthrough.md", HTML, Options{})
	golden.Check(t, "testdata/walkthrough.out.html", inlineAssets.ReplaceAll(page, []byte("<!-- asset -->")))
	for _, bad := range []string{"<b>HTML</b>", "<script>alert(1)</script>"} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("page contains %q as markup", bad)
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, f := range []Format{Markdown, HTML} {
		a := render(t, openDB(t), "walkthrough.md", f, Options{})
		b := render(t, openDB(t), "walkthrough.md", f, Options{})
		if !bytes.Equal(a, b) {
			t.Errorf("format %d: two runs differ", f)
		}
	}
}

func TestNamedResultAndChart(t *testing.T) {
	src, _ := os.ReadFile("testdata/walkthrough.md")
	nb, err := Run(context.Background(), openDB(t), "walkthrough.md", src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cells := nb.Cells()
	if len(cells) != 6 {
		t.Fatalf("got %d sql cells, want 6 (the bash block is not one)", len(cells))
	}
	if got := rowsText(cells[1].Result); got != "0 1 0.0909091|200 4 0.307692" {
		t.Errorf("named result queried later: rows %q", got)
	}
	ch, err := nb.chart(cells[2])
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Series) != 2 || ch.Series[1].Name != "errors" || len(ch.Series[1].Y) != 4 {
		t.Errorf("chart series = %+v", ch.Series)
	}
	bar, _ := nb.chart(cells[4])
	if strings.Join(bar.XLabels, ",") != "baseline,<script>alert(1)</script>,a|b_c" {
		t.Errorf("bar categories = %q", bar.XLabels)
	}
}

// rowsText shows a result as "a b|c d": cells by spaces, rows by bars.
func rowsText(r *Result) string {
	var rows []string
	for _, row := range r.Rows {
		var cells []string
		for _, v := range row {
			cells = append(cells, report.FormatValue(v))
		}
		rows = append(rows, strings.Join(cells, " "))
	}
	return strings.Join(rows, "|")
}
