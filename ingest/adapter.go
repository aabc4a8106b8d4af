package ingest

import (
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// This file is the adapter contract: the shape a format has (format), the
// table of formats in detection order (formats), and what an adapter may use
// of the rest of the package (listed below, with the small helpers
// themselves at the end of this file).

// A format is one kind of input file: how to recognise it from its first
// bytes (and name), and how to decode it into canonical staging batches.
// Every format has the same shape and lives in its own file; adding one
// touches the formats table below and that file, nothing else.
type format struct {
	name  string // the --from value
	about string // what files it reads, for --help and the README: a param format ({log-format})
	// detect tells from the first bytes of the decompressed content (up to
	// 64 KiB) and the file's name (without a compression extension).
	detect func(name string, head []byte) bool
	// decode returns the producer of the input's staging batches; events
	// and experiment or run parameters go to c.
	decode func(in *input, c *collector) (record.Produce, error)
}

// Name, About, Detect and Decode make a format of this package a
// record.Format, until it moves to a package of its own.
func (f format) Name() string                         { return f.name }
func (f format) About() string                        { return f.about }
func (f format) Detect(name string, head []byte) bool { return f.detect(name, head) }
func (f format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return f.decode(in.(*input), out.(*collector))
}

// What an adapter may use. An adapter is one file holding its Format name
// constant, its detect and its decode; of the rest of the package it is
// meant to use the names below (and what they return), and a new format
// should need nothing else. Where a name is not declared in this file, the
// file that declares it is given.
//
// Its input (*input; input.go, limits.go):
//   - in.head: the first headBytes of the decompressed content, to choose
//     an encoding as detect did; in.detectName() the name detection used.
//   - exactly one of in.reader() (streamed; the record cap applies per
//     line), in.all() (the whole content; the document cap applies) or
//     in.readerAt() (random access, for Parquet and Arrow files).
//   - in.unlined() before reading a binary stream whose records are not
//     lines; in.guard.max, the record cap, for a decoder that cuts records
//     itself; in.mapRaw, the fields a --map keeps raw.
//
// What it yields (batch.go, values.go, jsonrec.go):
//   - a produce, built by rows (one *row at a time: r.reset(line), the
//     fields by setField or directly with r.has set, r.is(col)), by wholeDoc
//     or by decodeTypedInput, all below;
//   - values: val and jsonVal to read a JSON value, setField and tsField
//     to set a canonical column from one (values.go); compactObject
//     (jsonrec.go) for an attrs object;
//   - events, experiments and runs on the *collector: c.add(event),
//     c.warnings for what is skipped.
//
// Its errors (errors.go): lineErr(line, ...) and fieldErr(line, field, ...),
// a *LineError without the file name (the ingest adds it); truncate (values.go)
// to quote a bad value.
//
// Shared readers:
//   - lines: newLineReader (lines.go, every line numbered from 1, any
//     length) and textLines (non-blank lines without line end or BOM);
//     headLines and tokens for the text server logs (textlog.go);
//   - JSON documents: newDocReader, subDoc, walkObject, walkArray
//     (jsondoc.go), which keep each value's line;
//   - detection: jsonText, firstLine, firstObject, magic, hasExt (below);
//   - runName (below): the run a file stands for when it names none.

// Formats lists the accepted --from values, in detection order.
var Formats = func() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.Name()
	}
	return out
}()

// FormatTable lists each format with what it reads, in detection order,
// a parameter it names written as name says.
func FormatTable(name func(param string) string) [][2]string {
	out := make([][2]string, len(formats))
	for i, f := range formats {
		out[i] = [2]string{f.Name(), param.Textf(f.About()).Say(name)}
	}
	return out
}

func formatNamed(name string) (record.Format, bool) {
	for _, f := range formats {
		if f.Name() == name {
			return f, true
		}
	}
	return nil, false
}

// Detect names the format of a file from its first bytes and its name.
func Detect(path string, head []byte) (string, error) {
	f, err := detectFormat(path, head)
	if err != nil {
		return "", err
	}
	return f.Name(), nil
}

func detectFormat(path string, head []byte) (record.Format, error) {
	if err := refused(head); err != nil {
		return nil, err
	}
	if err := serviceLogRefusal(path, head); err != nil {
		return nil, err
	}
	for _, f := range formats {
		if f.Detect(path, head) {
			return f, nil
		}
	}
	return nil, param.Errorf("from", "unknown format (want one of %s; name it with {from})", strings.Join(Formats, ", "))
}

// wholeDoc adapts a decoder of a whole in-memory document.
func wholeDoc(dec func(data []byte, c *collector) record.Produce) func(*input, *collector) (record.Produce, error) {
	return func(in *input, c *collector) (record.Produce, error) {
		data, err := in.All()
		if err != nil {
			return nil, err
		}
		return dec(data, c), nil
	}
}

func decodeTypedInput(kind string) func(*input, *collector) (record.Produce, error) {
	return func(in *input, c *collector) (record.Produce, error) {
		ra, size, err := in.ReaderAt()
		if err != nil {
			return nil, err
		}
		return decodeTypedSource(ra, size, kind), nil
	}
}
