package report

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/rewind-dev/rewind/internal/jsontext"
)

// RenderJSON writes d as one JSON object for programs: the same content as
// RenderText, with numbers as numbers. The verdict section (the one whose
// anchor is "verdict", as Build makes it) is lifted to the top as
// "verdict": its summary sentence and one answer per question. Table rows
// are objects keyed by column name, in column order, each column with its
// unit ("share" cells are fractions, 0.96 for 96 %; "x" cells are ratios);
// NULL, NaN and infinities are null, times RFC 3339 in UTC. A chart is
// summarized per series as in the text (its points are in the database,
// `rewind sql` reads them), with its reference lines, marks and bands.
// Section.HTML is left out, as in the text.
func RenderJSON(w io.Writer, d Document) error {
	out := jsonDocument{Title: d.Title, Subtitle: d.Subtitle, Footer: d.Footer, Sections: []jsonSection{}}
	for i, id := range sectionIDs(d.Sections) {
		s := d.Sections[i]
		if id == verdictID {
			out.Verdict = newJSONVerdict(s)
			continue
		}
		out.Sections = append(out.Sections, newJSONSection(id, s))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // p(95)<200 reads as written
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("render json: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("render json: %w", err)
	}
	return nil
}

// verdictID is the anchor of the verdict section (its title, "Verdict").
const verdictID = "verdict"

type jsonDocument struct {
	Title    string        `json:"title"`
	Subtitle string        `json:"subtitle,omitempty"`
	Verdict  *jsonVerdict  `json:"verdict,omitempty"`
	Sections []jsonSection `json:"sections"`
	Footer   string        `json:"footer,omitempty"`
}

// jsonVerdict is the verdict section: its note, the sentence that sums the
// answers up (and says which sections were left out, and why), and its
// table's rows (question, verdict, detail).
type jsonVerdict struct {
	Summary string    `json:"summary"`
	Answers []jsonRow `json:"answers"`
}

func newJSONVerdict(s Section) *jsonVerdict {
	v := &jsonVerdict{Summary: s.Note, Answers: []jsonRow{}}
	for _, t := range s.Tables {
		v.Answers = append(v.Answers, newJSONTable(t).Rows...)
	}
	return v
}

type jsonSection struct {
	ID     string      `json:"id"`
	Title  string      `json:"title,omitempty"`
	Note   string      `json:"note,omitempty"`
	Code   string      `json:"code,omitempty"`
	Tables []jsonTable `json:"tables"`
	Charts []jsonChart `json:"charts"`
}

func newJSONSection(id string, s Section) jsonSection {
	out := jsonSection{ID: id, Title: s.Title, Note: s.Note, Code: s.Code, Tables: []jsonTable{}, Charts: []jsonChart{}}
	for _, t := range s.Tables {
		out.Tables = append(out.Tables, newJSONTable(t))
	}
	for _, c := range s.Charts {
		out.Charts = append(out.Charts, newJSONChart(c))
	}
	return out
}

type jsonColumn struct {
	Name string `json:"name"`
	Unit string `json:"unit,omitempty"`
}

type jsonTable struct {
	Caption string       `json:"caption,omitempty"`
	Columns []jsonColumn `json:"columns"`
	Rows    []jsonRow    `json:"rows"`
	Omitted int          `json:"omitted,omitempty"`
}

func newJSONTable(t Table) jsonTable {
	out := jsonTable{Caption: t.Caption, Columns: make([]jsonColumn, len(t.Columns)), Rows: make([]jsonRow, len(t.Rows)), Omitted: t.Omitted}
	for i, c := range t.Columns {
		out.Columns[i] = jsonColumn{Name: c.Name, Unit: c.Unit}
	}
	for i, r := range t.Rows {
		out.Rows[i] = jsonRow{columns: t.Columns, values: r}
	}
	return out
}

// jsonRow is a table row as an object whose keys keep the columns' order
// (a Go map would sort them).
type jsonRow struct {
	columns []Column
	values  []Value
}

func (r jsonRow) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, c := range r.columns {
		if i > 0 {
			b.WriteByte(',')
		}
		var v Value
		if i < len(r.values) {
			v = r.values[i]
		}
		k, err := jsontext.Marshal(c.Name)
		if err != nil {
			return nil, err
		}
		val, err := jsontext.Marshal(jsonCell(v))
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonCell is a cell as JSON holds it: a number stays a number (a cell
// formatted for people, such as 96.00 %, gives back the number it shows),
// a time is RFC 3339 in UTC, bytes are \x hex as in the text; what JSON has
// no number for (NaN, infinities) is null.
func jsonCell(v Value) any {
	switch x := v.(type) {
	case nil, string, bool:
		return x
	case shown:
		return jsonFloat(x.f)
	case float64:
		return jsonFloat(x)
	case float32:
		return jsonFloat(float64(x))
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case []byte:
		return `\x` + hex.EncodeToString(x)
	case *big.Int:
		return json.Number(x.String())
	}
	if s, ok := formatInteger(v); ok {
		return json.Number(s)
	}
	if s, ok := v.(fmt.Stringer); ok {
		text := s.String()
		if _, err := strconv.ParseFloat(text, 64); err == nil {
			return json.Number(text) // a decimal keeps every digit
		}
		return text
	}
	if _, err := json.Marshal(v); err == nil {
		return v // lists and structs (a notebook's LIST column)
	}
	return fmt.Sprint(v)
}

func jsonFloat(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

type jsonChart struct {
	Title  string     `json:"title,omitempty"`
	Kind   string     `json:"kind"`
	XLabel string     `json:"x_label,omitempty"`
	YLabel string     `json:"y_label,omitempty"`
	Series []jsonRow  `json:"series"`
	Lines  []jsonLine `json:"lines"`
	Marks  []jsonMark `json:"marks"`
	Bands  []jsonBand `json:"bands"`
	XNames []string   `json:"x_names,omitempty"`
}

type jsonLine struct {
	Label string `json:"label"`
	Y     any    `json:"y"`
}

type jsonMark struct {
	Label string `json:"label"`
	X     any    `json:"x"`
}

type jsonBand struct {
	Label string `json:"label"`
	From  any    `json:"from"`
	To    any    `json:"to"`
}

// seriesColumns are a series summary's keys, the text's chart table
// (seriesSummary) in snake case.
var seriesColumns = []Column{{Name: "series"}, {Name: "points"}, {Name: "x_from"}, {Name: "x_to"},
	{Name: "y_min"}, {Name: "y_max"}, {Name: "x_at_y_max"}}

func newJSONChart(c Chart) jsonChart {
	out := jsonChart{Title: c.Title, Kind: chartKind(c.Kind), XLabel: c.XLabel, YLabel: c.YLabel, XNames: c.XLabels,
		Series: []jsonRow{}, Lines: []jsonLine{}, Marks: []jsonMark{}, Bands: []jsonBand{}}
	for _, s := range c.Series {
		out.Series = append(out.Series, jsonRow{columns: seriesColumns, values: seriesSummary(s, c.XLabels)})
	}
	for _, h := range c.HLines {
		out.Lines = append(out.Lines, jsonLine{h.Label, jsonFloat(h.Y)})
	}
	for _, m := range c.VMarks {
		out.Marks = append(out.Marks, jsonMark{m.Label, jsonFloat(m.X)})
	}
	for _, b := range c.Bands {
		out.Bands = append(out.Bands, jsonBand{b.Label, jsonFloat(b.From), jsonFloat(b.To)})
	}
	return out
}
