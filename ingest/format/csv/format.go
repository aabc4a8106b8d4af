// Package csv reads canonical CSV: a header row of canonical column names
// (record.Schema's), then one request a record. A column the schema names
// is parsed by type, through the setters the canonical JSON formats share
// (record.SetterOf); any other column is kept in attrs as text. Records are
// decoded in parallel, chunk by chunk (record.Chunks).
package csv

import (
	"bytes"

	"github.com/rewind-dev/rewind/ingest/record"
)

// Name names the format ({from} csv).
const Name = "csv"

// Format is canonical CSV as a record.Format.
type Format struct{}

func (Format) Name() string  { return Name }
func (Format) About() string { return "CSV with a header row of canonical column names" }
func (Format) Detect(name string, head []byte) bool {
	return detectCSV(name, head)
}
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeCSVInput(in, out)
}

// InLineOrder and TimesFromTs are its record.Streamed answers: rows come
// in line order, and a file may give t_ms or an experiment of its own.
func (Format) InLineOrder() bool { return true }
func (Format) TimesFromTs() bool { return false }

func detectCSV(name string, head []byte) bool {
	return record.HasExt(name, ".csv", ".tsv") || looksLikeCSVHeader(record.JSONText(head))
}

func looksLikeCSVHeader(text []byte) bool {
	line, _, _ := bytes.Cut(text, []byte("\n"))
	return bytes.Contains(line, []byte(",")) && bytes.Contains(line, []byte("outcome"))
}
