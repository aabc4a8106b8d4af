package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/rewind-dev/rewind/notebook"
	"github.com/rewind-dev/rewind/store"
)

const notebookUsage = `Usage: rewind notebook [flags] FILE.md

Run a markdown notebook against the database (opened read-only, in the
sandbox of rewind sql: a cell reads the database and nothing else): each fenced
` + "```sql" + ` cell runs in order and its result is written in place, as a
table, or as a chart when the cell asks (` + "```sql chart=line x=window_no y=ok_share" + `).
A cell may name its result (` + "```sql name=w" + `) for later cells to query. The
output is markdown or one self-contained HTML page, chosen by -o's
extension; without -o (or with "-o -") markdown goes to stdout. The same notebook and database
give the same bytes. A failing cell is reported as FILE:LINE.

-o never overwrites the notebook itself or the database, and replaces an
existing file only when rewind notebook wrote it (an HTML page rewind wrote,
or markdown whose first line is rewind's marker comment); --force replaces
any other file. The output is written whole or not at all.

Examples:
  rewind ingest fixtures/chaos/gunluk.json && rewind notebook fixtures/notebooks/chaos.md
  rewind notebook fixtures/notebooks/chaos.md -o chaos.md
  rewind notebook --db storm.duckdb analysis.md -o -`

type notebookOptions struct {
	db      string
	opts    openFlags
	out     string
	maxRows int
	force   bool
}

func init() {
	register(command{name: "notebook", summary: "run a markdown+SQL notebook into markdown or HTML", run: runNotebook})
}

func runNotebook(ctx context.Context, e *env, args []string) error {
	var o notebookOptions
	fs := newFlags(e, "notebook", notebookUsage)
	fs.StringVar(&o.db, "db", store.DefaultDB, "database file")
	fs.StringVarP(&o.out, "out", "o", "", "output `FILE`: .md or .html, or - for markdown on stdout (default: markdown on stdout)")
	fs.IntVar(&o.maxRows, "max-rows", notebook.DefaultMaxRows, "rows shown per result table; the rest are counted")
	fs.BoolVar(&o.force, "force", false, "replace an existing -o file that rewind did not write (never the notebook or the database)")
	o.opts.add(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{hinted{fmt.Errorf("want one notebook file, got %d", fs.NArg()), "rewind notebook fixtures/notebooks/chaos.md -o chaos.html"}}
	}
	in := fs.Arg(0)
	format := notebook.Markdown
	if o.out != "-" && o.out != "" {
		var err error
		if format, err = notebook.FormatOf(o.out); err != nil {
			return usageError{hinted{err, "rewind notebook " + in + " -o out.html"}}
		}
		kind := notebookMarkdown
		if format != notebook.Markdown {
			kind = htmlPage
		}
		if err := checkOutput(fs, "out", o.out, kind, o.force, append(dbGuards(o.db), guarded{in, "the notebook being run"})...); err != nil {
			return err
		}
	}
	src, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	db, err := o.opts.open(ctx, o.db, false) // read-only, sandboxed
	if err != nil {
		return err
	}
	defer db.Close()
	return writeNotebook(ctx, e, db, in, src, format, o)
}

// writeNotebook renders the whole notebook before writing, so a failing cell
// leaves no half-written output file.
func writeNotebook(ctx context.Context, e *env, db *store.DB, name string, src []byte, f notebook.Format, o notebookOptions) error {
	var buf bytes.Buffer
	if err := notebook.Render(ctx, db.DB, name, src, &buf, f, notebook.Options{MaxRows: o.maxRows}); err != nil {
		return err
	}
	if o.out == "" || o.out == "-" {
		_, err := e.stdout.Write(buf.Bytes())
		return err
	}
	err := writeOutput(o.out, func(w io.Writer) error {
		if f == notebook.Markdown {
			if _, err := io.WriteString(w, notebookMarker); err != nil {
				return err
			}
		}
		_, err := w.Write(buf.Bytes())
		return err
	})
	if err != nil {
		return fmt.Errorf("write notebook: %w", err)
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", o.out)
	return nil
}
