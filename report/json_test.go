package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/report"
)

// TestJSONIsTheDocument renders the report of every bundled fixture as
// JSON and reads it back: the verdict is lifted to the top with every
// answer, the other sections follow in order, and every table cell and
// column unit is the document's own (a share cell shown as 96.00 % is the
// number behind it).
func TestJSONIsTheDocument(t *testing.T) {
	for _, c := range fixtureReports(t) {
		t.Run(c.name, func(t *testing.T) {
			doc := c.build(t)
			got := renderJSON(t, doc)
			if got.Title != doc.Title || got.Subtitle != doc.Subtitle || got.Footer != doc.Footer {
				t.Errorf("title %q, subtitle %q, footer %q; want %q, %q, %q", got.Title, got.Subtitle, got.Footer, doc.Title, doc.Subtitle, doc.Footer)
			}
			verdict, rest := doc.Sections[0], doc.Sections[1:]
			checkVerdict(t, got.Verdict, verdict)
			if len(got.Sections) != len(rest) {
				t.Fatalf("%d sections, want %d", len(got.Sections), len(rest))
			}
			for i, s := range rest {
				g := got.Sections[i]
				if g.Title != s.Title || g.Note != s.Note || len(g.Tables) != len(s.Tables) || len(g.Charts) != len(s.Charts) {
					t.Fatalf("section %d: %q with %d tables, %d charts; want %q with %d, %d",
						i, g.Title, len(g.Tables), len(g.Charts), s.Title, len(s.Tables), len(s.Charts))
				}
				for j, tab := range s.Tables {
					checkTable(t, s.Title, g.Tables[j], tab)
				}
				for j, ch := range s.Charts {
					checkChart(t, g.Charts[j], ch)
				}
			}
		})
	}
}

type parsedDoc struct {
	Title    string
	Subtitle string
	Verdict  *parsedVerdict
	Sections []struct {
		ID, Title, Note string
		Tables          []parsedTable
		Charts          []parsedChart
	}
	Footer string
}

type parsedChart struct {
	Title  string
	Series []map[string]any
	Lines  []struct {
		Label string
		Y     *float64
	}
	Bands []struct {
		Label    string
		From, To *float64
	}
}

type parsedVerdict struct {
	Summary string
	Answers []map[string]any
}

type parsedTable struct {
	Columns []struct{ Name, Unit string }
	Rows    []json.RawMessage
}

func renderJSON(t *testing.T, doc report.Document) parsedDoc {
	t.Helper()
	var buf bytes.Buffer
	if err := report.RenderJSON(&buf, doc); err != nil {
		t.Fatal(err)
	}
	var got parsedDoc
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	return got
}

func checkVerdict(t *testing.T, got *parsedVerdict, want report.Section) {
	t.Helper()
	if got == nil || got.Summary != want.Note {
		t.Fatalf("verdict %+v, want the summary %q", got, want.Note)
	}
	var rows [][]report.Value
	for _, tab := range want.Tables {
		rows = append(rows, tab.Rows...)
	}
	if len(got.Answers) != len(rows) {
		t.Fatalf("%d answers, want %d", len(got.Answers), len(rows))
	}
	for i, r := range rows {
		a := got.Answers[i]
		if a["question"] != r[0] || a["verdict"] != r[1] || a["detail"] != r[2] {
			t.Errorf("answer %d: %v, want %q", i, a, r)
		}
	}
}

// checkTable compares a parsed table with the document's, cell by cell,
// keys in column order.
func checkTable(t *testing.T, section string, got parsedTable, want report.Table) {
	t.Helper()
	if len(got.Columns) != len(want.Columns) || len(got.Rows) != len(want.Rows) {
		t.Fatalf("%s: %d columns, %d rows; want %d, %d", section, len(got.Columns), len(got.Rows), len(want.Columns), len(want.Rows))
	}
	for i, c := range want.Columns {
		if got.Columns[i].Name != c.Name || got.Columns[i].Unit != c.Unit {
			t.Errorf("%s: column %d %+v, want %+v", section, i, got.Columns[i], c)
		}
	}
	for i, raw := range got.Rows {
		keys, values := objectInOrder(t, raw)
		for j, c := range want.Columns {
			if keys[j] != c.Name {
				t.Fatalf("%s row %d: key %d is %q, want %q", section, i, j, keys[j], c.Name)
			}
			if !sameCell(values[j], want.Rows[i][j]) {
				t.Errorf("%s row %d %s: %#v, want the cell %#v (%s)", section, i, c.Name, values[j], want.Rows[i][j], report.FormatValue(want.Rows[i][j]))
			}
		}
	}
}

// sameCell reports whether a JSON value is the cell: the same string,
// bool or number (the number a formatted cell stands for), null for NULL
// and NaN.
func sameCell(got any, cell report.Value) bool {
	if f, ok := cell.(interface{ Float64() float64 }); ok {
		cell = f.Float64()
	}
	switch x := cell.(type) {
	case nil:
		return got == nil
	case string, bool:
		return got == x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return got == nil
		}
		return got == x
	}
	if report.IsNumeric(cell) {
		g, ok := got.(float64)
		return ok && report.FormatValue(cell) == report.FormatValue(g)
	}
	return got == report.FormatValue(cell)
}

// checkChart compares a chart's summary with the chart: a series per
// series, each counting its finite points, and the same reference lines.
func checkChart(t *testing.T, got parsedChart, want report.Chart) {
	t.Helper()
	if got.Title != want.Title || len(got.Series) != len(want.Series) || len(got.Lines) != len(want.HLines) || len(got.Bands) != len(want.Bands) {
		t.Fatalf("chart %q: %d series, %d lines, %d bands; want %q: %d, %d, %d", got.Title, len(got.Series), len(got.Lines), len(got.Bands),
			want.Title, len(want.Series), len(want.HLines), len(want.Bands))
	}
	for i, s := range want.Series {
		n := 0
		for j, x := range s.X {
			if j < len(s.Y) && finite(x) && finite(s.Y[j]) {
				n++
			}
		}
		if got.Series[i]["series"] != s.Name || got.Series[i]["points"] != float64(n) {
			t.Errorf("chart %q series %d: %v, want %q with %d points", want.Title, i, got.Series[i], s.Name, n)
		}
	}
	for i, l := range want.HLines {
		if g := got.Lines[i]; g.Label != l.Label || g.Y == nil || *g.Y != l.Y {
			t.Errorf("chart %q line %d: %+v, want %+v", want.Title, i, g, l)
		}
	}
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// objectInOrder reads a JSON object's keys in the order written.
func objectInOrder(t *testing.T, raw json.RawMessage) ([]string, []any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var keys []string
	var values []any
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		keys, values = append(keys, k.(string)), append(values, v)
	}
	return keys, values
}

// decimal is a DuckDB-like decimal: a Stringer with more digits than a
// float64 holds.
type decimal struct{ s string }

func (d decimal) String() string { return d.s }

// TestJSONCells pins each kind of cell: what JSON has no number for is
// null, times are RFC 3339 in UTC, integers and decimals keep every digit,
// strings are not HTML-escaped, and keys keep the columns' order.
func TestJSONCells(t *testing.T) {
	big, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	at := time.Date(2026, 11, 30, 15, 0, 0, 1222000, time.FixedZone("x", 3600))
	doc := report.Document{Title: "cells", Sections: []report.Section{{Title: "All", Tables: []report.Table{{
		Columns: []report.Column{{Name: "z"}, {Name: "nan"}, {Name: "inf"}, {Name: "at"}, {Name: "int"}, {Name: "big"},
			{Name: "dec"}, {Name: "word"}, {Name: "bytes"}, {Name: "a", Unit: "ms"}},
		Rows: [][]report.Value{{"<script>&", math.NaN(), math.Inf(-1), at, int64(math.MaxInt64), big,
			decimal{"0.123456789012345678"}, decimal{"n/a"}, []byte{0, 255}, nil}},
	}}}}}
	var buf bytes.Buffer
	if err := report.RenderJSON(&buf, doc); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`"z": "<script>&"`, `"nan": null`, `"inf": null`, `"at": "2026-11-30T14:00:00.001222Z"`,
		`"int": 9223372036854775807`, `"big": 123456789012345678901234567890`, `"dec": 0.123456789012345678`,
		`"word": "n/a"`, `"bytes": "\\x00ff"`, `"a": null`, `"unit": "ms"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
	var got parsedDoc
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	keys, _ := objectInOrder(t, got.Sections[0].Tables[0].Rows[0])
	if want := []string{"z", "nan", "inf", "at", "int", "big", "dec", "word", "bytes", "a"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
	if got.Verdict != nil {
		t.Errorf("a document without a verdict section has the verdict %+v", got.Verdict)
	}
}

// TestJSONVerdictFirst checks that the section titled Verdict is lifted out
// of the sections to the top, wherever it stands; a second one has another
// anchor (verdict-2) and stays a section.
func TestJSONVerdictFirst(t *testing.T) {
	verdict := report.Section{Title: "Verdict", Note: "Held.", Tables: []report.Table{{
		Columns: []report.Column{{Name: "question"}, {Name: "verdict"}, {Name: "detail"}},
		Rows:    [][]report.Value{{"steady-state hypothesis", "held", "0 of 3"}},
	}}}
	doc := report.Document{Sections: []report.Section{{Title: "Runs"}, verdict, {Title: "Verdict", Note: "a second one"}}}
	got := renderJSON(t, doc)
	checkVerdict(t, got.Verdict, verdict)
	var ids []string
	for _, s := range got.Sections {
		ids = append(ids, s.ID)
	}
	if want := []string{"runs", "verdict-2"}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("sections %q, want %q", ids, want)
	}
}
