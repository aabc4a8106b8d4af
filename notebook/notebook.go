// Package notebook runs markdown notebooks whose fenced ```sql cells query a
// DuckDB database, and writes them back with each result in place: as
// markdown (.md) or as one self-contained HTML page (.html) drawn by
// report.
//
// A cell's info string takes options after "sql":
//
//	```sql name=windows                      result becomes TEMP TABLE windows
//	```sql chart=line x=t_ms y=ok,errors      drawn as a chart (line|bar|step)
//
// Cells run in order on one connection, so later cells can query earlier
// named results. A cell may hold several statements (e.g. CREATE MACRO, then
// SELECT); the last one's result is shown. A named cell holds one query. The same notebook and database give the same output byte for
// byte: nothing depends on time, and numbers are formatted by
// report.FormatValue. A failing cell stops the run with an error naming the
// file and the cell's line.
package notebook

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// DefaultMaxRows is how many rows a result table shows unless Options says
// otherwise; the rest are counted, not printed.
const DefaultMaxRows = 200

// Options tune a run. The zero value is ready to use.
type Options struct {
	MaxRows int // rows shown per table cell; 0 means DefaultMaxRows
}

func (o Options) withDefaults() Options {
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	return o
}

// Notebook is a parsed notebook; after Run its cells hold their results.
type Notebook struct {
	Name  string
	parts []part
	opts  Options
}

// Cells returns the notebook's SQL cells in order.
func (nb *Notebook) Cells() []*Cell {
	var cells []*Cell
	for _, p := range nb.parts {
		if p.cell != nil {
			cells = append(cells, p.cell)
		}
	}
	return cells
}

// Format is an output format.
type Format int

// Output formats.
const (
	Markdown Format = iota
	HTML
)

// FormatOf picks the format from an output file's extension.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		return Markdown, nil
	case ".html", ".htm":
		return HTML, nil
	}
	return 0, fmt.Errorf("output %s: want a .md or .html file", path)
}

// Write writes the run notebook in format f.
func (nb *Notebook) Write(w io.Writer, f Format) error {
	if f == HTML {
		return nb.WriteHTML(w)
	}
	return nb.WriteMarkdown(w)
}

// Render is Run followed by Write: the whole `rewind notebook` job.
func Render(ctx context.Context, db *sql.DB, name string, src []byte, w io.Writer, f Format, opts Options) error {
	nb, err := Run(ctx, db, name, src, opts)
	if err != nil {
		return err
	}
	return nb.Write(w, f)
}
