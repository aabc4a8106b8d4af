package main

import (
	"bufio"
	"io"
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/replay"
)

// Every command that prints rows (analyze, sql, replay, watch, ingest)
// prints them through analyze.RowWriter, with the one --format flag below:
// table (aligned, units in the headers), json (one JSON array of objects
// keyed by column name; times RFC 3339) or csv (a header, then the rows).
// What is not a row (a replay's summary, notes) goes to stderr with json
// and csv, so stdout is data alone.

const formatHelp = "output format: table, json or csv"

// checkRowFormat refuses a --format that is not one of analyze.Formats.
func checkRowFormat(format string) error {
	if slices.Contains(analyze.Formats, format) {
		return nil
	}
	last := len(analyze.Formats) - 1
	return usagef("--format %q: want %s or %s", format, strings.Join(analyze.Formats[:last], ", "), analyze.Formats[last])
}

// isData reports whether format writes data (json, csv) rather than a
// table for people.
func isData(format string) bool { return format == "json" || format == "csv" }

// verdictOut prints a replay's or a watch's verdicts as they are decided:
// replay's own table (fixed widths, so a paced replay shows each window as
// it closes), or rows of the shared writer.
type verdictOut struct {
	table  *replay.Printer
	rows   *analyze.RowWriter
	buf    *bufio.Writer // rows without pacing: written in blocks
	metric string
}

// newVerdictOut returns the printer of verdicts judged on metric; buffered
// writes them in blocks (nothing waits between windows).
func newVerdictOut(w io.Writer, format, metric string, buffered bool) (*verdictOut, error) {
	o := &verdictOut{metric: metric}
	if !isData(format) {
		p, err := replay.NewPrinter(w, "table")
		if err != nil {
			return nil, err
		}
		p.SetMetric(metric)
		if buffered {
			p.Buffer()
		}
		o.table = p
		return o, nil
	}
	if buffered {
		o.buf = bufio.NewWriterSize(w, 64<<10)
		w = o.buf
	}
	var cols []analyze.Column
	for _, c := range replay.RowColumns(metric) {
		cols = append(cols, analyze.Column{Name: c})
	}
	rows, err := analyze.NewRowWriter(w, format, cols)
	o.rows = rows
	return o, err
}

// Verdict prints one window.
func (o *verdictOut) Verdict(v replay.Verdict) error {
	if o.table != nil {
		return o.table.Verdict(v)
	}
	return o.rows.Row(replay.RowValues(v, o.metric))
}

// Close writes what is left: the buffered lines, the JSON array's end.
func (o *verdictOut) Close() error {
	if o.table != nil {
		return o.table.Flush()
	}
	if err := o.rows.Close(); err != nil {
		return err
	}
	if o.buf != nil {
		return o.buf.Flush()
	}
	return nil
}
