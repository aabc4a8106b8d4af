package notebook

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestErrorsNameFileAndLine(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"binder error", "# t\n\n```sql\nSELECT 1\n```\n\ntext\n\n```sql\nSELECT nope\n```\n",
			"walkthrough.md:9: sql cell: Binder Error: "},
		{"unknown option", "```sql chrt=line\nSELECT 1\n```\n",
			`walkthrough.md:1: sql cell: unknown option "chrt"`},
		{"chart without y", "\n```sql chart=line x=a\nSELECT 1 AS a\n```\n",
			"walkthrough.md:2: sql cell: chart=line needs x=COLUMN and y=COLUMN[,COLUMN]"},
		{"chart column missing", "```sql chart=bar x=a y=b\nSELECT 1 AS a\n```\n",
			`walkthrough.md:1: sql cell: chart: no column "b" in the result (columns: a)`},
		{"chart y not a number", "```sql chart=line x=a y=b\nSELECT 1 AS a, 'x' AS b\n```\n",
			`walkthrough.md:1: sql cell: chart: y=b: row 1: "x" is not a number`},
		{"unclosed", "text\n```sql\nSELECT 1\n", "walkthrough.md:2: sql cell: no closing ```"},
		{"bad name", "```sql name=a-b\nSELECT 1\n```\n", "walkthrough.md:1: sql cell: name=a-b: want a plain SQL identifier"},
		{"named result gone later", "```sql\nSELECT * FROM later\n```\n```sql name=later\nSELECT 1\n```\n",
			"walkthrough.md:1: sql cell: Catalog Error: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Render(context.Background(), openDB(t), "walkthrough.md", []byte(c.src), &buf, Markdown, Options{})
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error = %v\nwant prefix %q", err, c.want)
			}
			if buf.Len() != 0 {
				t.Errorf("a failed notebook wrote output: %q", buf.String())
			}
		})
	}
}

func TestTempTablesDoNotLeak(t *testing.T) {
	db := openDB(t)
	src := []byte("```sql name=scratch\nSELECT 1 AS a\n```\n")
	if _, err := Run(context.Background(), db, "n.md", src, Options{}); err != nil {
		t.Fatal(err)
	}
	db.SetMaxIdleConns(1)
	if _, err := db.Exec("SELECT * FROM scratch"); err == nil {
		t.Error("the notebook's temp table is visible on the caller's connections")
	}
}

func TestMaxRows(t *testing.T) {
	src := []byte("```sql\nSELECT range AS i FROM range(5) ORDER BY i\n```\n")
	var buf bytes.Buffer
	err := Render(context.Background(), openDB(t), "n.md", src, &buf, Markdown, Options{MaxRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := "```sql\nSELECT range AS i FROM range(5) ORDER BY i\n```\n\n| i |\n| ---: |\n| 0 |\n| 1 |\n\n*(3 more rows not shown)*\n"
	if buf.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestFormatOf(t *testing.T) {
	for path, want := range map[string]Format{"a.md": Markdown, "b.HTML": HTML, "c.htm": HTML} {
		if got, err := FormatOf(path); err != nil || got != want {
			t.Errorf("FormatOf(%q) = %v, %v", path, got, err)
		}
	}
	if _, err := FormatOf("out.pdf"); err == nil {
		t.Error("FormatOf(out.pdf) gave no error")
	}
}
