package notebook

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rewind-dev/rewind/report"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// md renders the prose. goldmark is CommonMark-conformant and, as
// configured here (no html.WithUnsafe), drops raw HTML from the notebook, so
// the page's only markup is what goldmark and report generate.
var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
)

// WriteHTML writes the notebook as one self-contained HTML page: the prose
// rendered from markdown, each cell's SQL, and its result as a table or a
// chart. The notebook's first "# " heading becomes the page title.
func (nb *Notebook) WriteHTML(w io.Writer) error {
	doc, err := nb.document()
	if err != nil {
		return err
	}
	if err := report.RenderHTML(w, doc); err != nil {
		return fmt.Errorf("write %s: %w", nb.Name, err)
	}
	return nil
}

// document maps the notebook onto report's model: one untitled section per
// cell, holding the prose before the cell, its SQL and its result.
func (nb *Notebook) document() (report.Document, error) {
	doc := report.Document{Title: filepath.Base(nb.Name)}
	prose := ""
	for i, p := range nb.parts {
		if p.cell == nil {
			prose = p.prose
			if i == 0 {
				prose = nb.takeTitle(&doc, prose)
			}
			continue
		}
		s, err := nb.section(prose, p.cell)
		if err != nil {
			return doc, fmt.Errorf("%s:%d: sql cell: %w", nb.Name, p.cell.Line, err)
		}
		doc.Sections = append(doc.Sections, s)
		prose = ""
	}
	if strings.TrimSpace(prose) != "" {
		h, err := markdownHTML(prose)
		if err != nil {
			return doc, err
		}
		doc.Sections = append(doc.Sections, report.Section{HTML: h})
	}
	return doc, nil
}

var h1 = regexp.MustCompile(`^\s*# +(.+?)[ \t#]*(\n|$)`)

// takeTitle moves a level-1 heading that opens the notebook into the
// document title, so the page does not show it twice.
func (nb *Notebook) takeTitle(doc *report.Document, prose string) string {
	loc := h1.FindStringSubmatchIndex(prose)
	if loc == nil {
		return prose
	}
	doc.Title = prose[loc[2]:loc[3]]
	return prose[loc[1]:]
}

func (nb *Notebook) section(prose string, c *Cell) (report.Section, error) {
	h, err := markdownHTML(prose)
	if err != nil {
		return report.Section{}, err
	}
	s := report.Section{HTML: h, Code: strings.TrimRight(c.SQL, "\n")}
	if c.Chart != "" {
		ch, err := nb.chart(c)
		if err != nil {
			return s, err
		}
		s.Charts = []report.Chart{ch}
		return s, nil
	}
	if t := nb.table(c); len(t.Columns) > 0 {
		s.Tables = []report.Table{t}
	}
	return s, nil
}

func markdownHTML(src string) (template.HTML, error) {
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf); err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	// Safe: goldmark escapes text and omits raw HTML in this configuration.
	return template.HTML(buf.String()), nil
}
