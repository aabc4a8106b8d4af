package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/rewind-dev/rewind/ingest/record"
)

// docReader walks a whole-document JSON file (a JSON array of records, or
// the chaos seed's gunluk.json) with a token decoder, so each element can be
// given the line it starts on.
type docReader struct {
	data []byte
	dec  *json.Decoder
	// lines counted up to off, so line lookups stay linear overall
	off  int
	line int64
}

func newDocReader(data []byte) *docReader {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return &docReader{data: data, dec: d, line: 1}
}

// lineAt returns the 1-based line of byte offset o (o never decreases).
func (d *docReader) lineAt(o int) int64 {
	for ; d.off < o && d.off < len(d.data); d.off++ {
		if d.data[d.off] == '\n' {
			d.line++
		}
	}
	return d.line
}

// elementLine is the line where the next value starts (after whitespace and commas).
func (d *docReader) elementLine() int64 {
	o := int(d.dec.InputOffset())
	for o < len(d.data) && (d.data[o] == ' ' || d.data[o] == '\n' || d.data[o] == '\r' || d.data[o] == '\t' || d.data[o] == ',') {
		o++
	}
	return d.lineAt(o)
}

func (d *docReader) syntaxErr(err error) error {
	line := d.lineAt(int(d.dec.InputOffset()))
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return record.LineErr(line, "bad JSON: unexpected end of file (truncated?)")
	}
	return record.LineErr(line, "bad JSON: %v", err)
}

func (d *docReader) expectDelim(want json.Delim) error {
	t, err := d.dec.Token()
	if err != nil {
		return d.syntaxErr(err)
	}
	if t != want {
		return record.LineErr(d.lineAt(int(d.dec.InputOffset())), "bad JSON: want %q, got %v", want, t)
	}
	return nil
}

// eachElement calls fn for every element of the array that starts next.
func (d *docReader) eachElement(fn func(raw json.RawMessage, line int64) error) error {
	if err := d.expectDelim('['); err != nil {
		return err
	}
	for d.dec.More() {
		raw, line, err := d.element()
		if err != nil {
			return err
		}
		if err := fn(raw, line); err != nil {
			return err
		}
	}
	if _, err := d.dec.Token(); err != nil {
		return d.syntaxErr(err)
	}
	return nil
}

// element decodes the next top-level record with the line it starts on,
// for the readers of a document of records (eachElement, decodeJSONStream).
func (d *docReader) element() (json.RawMessage, int64, error) {
	line := d.elementLine()
	var raw json.RawMessage
	if err := d.dec.Decode(&raw); err != nil {
		return nil, 0, d.syntaxErr(err)
	}
	return raw, line, nil
}

// decodeJSONArray reads a JSON array of canonical objects.
func decodeJSONArray(data []byte, c *collector) record.Produce {
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		d := newDocReader(data)
		var r record.Row
		err := d.eachElement(func(raw json.RawMessage, line int64) error {
			return addObject(&r, raw, line, c, add)
		})
		if err != nil {
			return err
		}
		return d.trailing()
	})
}

// decodeJSONStream reads canonical objects written one after the other,
// each over as many lines as it takes (jq's pretty-printed output of an
// NDJSON log): each record's errors name the line where it starts.
func decodeJSONStream(data []byte, c *collector) record.Produce {
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		d := newDocReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
		var r record.Row
		for n := 1; d.dec.More(); n++ {
			if n%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			raw, line, err := d.element()
			if err != nil {
				return err
			}
			if raw[0] != '{' {
				return record.LineErr(line, "bad JSON: want an object starting with '{', got %q", record.Truncate(string(raw), 20))
			}
			if err := addObject(&r, raw, line, c, add); err != nil {
				return err
			}
		}
		return d.trailing()
	})
}

// addObject decodes a canonical object that starts on line into r and adds
// it when it is a request (other records go to c), for both JSON document
// readers above.
func addObject(r *record.Row, raw json.RawMessage, line int64, c *collector, add func(*record.Row) error) error {
	r.Reset(line)
	isReq, err := decodeObject(raw, r, c)
	if err != nil || !isReq {
		return err
	}
	return add(r)
}

// spansLines tells an NDJSON head whose first record does not end on its
// first line: a stream of pretty-printed objects, read as documents.
func spansLines(head []byte) bool {
	t := record.JSONText(head)
	return len(t) > 0 && t[0] == '{' && !json.Valid(record.FirstLine(head))
}

// trailing refuses anything after the document.
func (d *docReader) trailing() error {
	if _, err := d.dec.Token(); err != io.EOF {
		return record.LineErr(d.lineAt(int(d.dec.InputOffset())), "bad JSON: unexpected data after the end of the document")
	}
	return nil
}

// Walking JSON documents value by value keeps each value's line: the
// helpers below are shared by the document formats of this package that
// need lines deeper than a top-level array (OTLP, Chaos Toolkit).

// value decodes the next value and returns it with the line it starts on.
func (d *docReader) value() (json.RawMessage, int64, error) {
	var raw json.RawMessage
	if err := d.dec.Decode(&raw); err != nil {
		if err == io.ErrUnexpectedEOF {
			d.lineAt(len(d.data)) // the truncation is at the end, not where the value starts
		}
		return nil, 0, d.syntaxErr(err)
	}
	return raw, d.lineAt(int(d.dec.InputOffset()) - len(raw)), nil
}

// subDoc reads raw, a value that starts on line.
func subDoc(raw json.RawMessage, line int64) *docReader {
	d := newDocReader(raw)
	d.line = line
	return d
}

// walkObject calls fn with each member of the object raw (on line), with
// the line its value starts on. null is an empty object.
func walkObject(raw json.RawMessage, line int64, fn func(key string, v json.RawMessage, line int64) error) error {
	if record.JSONVal(raw).Kind == 'z' {
		return nil
	}
	if raw[0] != '{' {
		return record.LineErr(line, "want a JSON object, got %s", record.JSONVal(raw).Describe())
	}
	d := subDoc(raw, line)
	if _, err := d.dec.Token(); err != nil {
		return d.syntaxErr(err)
	}
	for d.dec.More() {
		t, err := d.dec.Token()
		if err != nil {
			return d.syntaxErr(err)
		}
		v, vline, err := d.value()
		if err != nil {
			return err
		}
		if err := fn(t.(string), v, vline); err != nil {
			return err
		}
	}
	return nil
}

// walkArray calls fn with each element of the array raw (the value of
// field name, on line). null is an empty array.
func walkArray(raw json.RawMessage, line int64, name string, fn func(v json.RawMessage, line int64) error) error {
	if record.JSONVal(raw).Kind == 'z' {
		return nil
	}
	if raw[0] != '[' {
		return record.FieldErr(line, name, "want an array, got %s", record.JSONVal(raw).Describe())
	}
	d := subDoc(raw, line)
	if _, err := d.dec.Token(); err != nil {
		return d.syntaxErr(err)
	}
	for d.dec.More() {
		v, vline, err := d.value()
		if err != nil {
			return err
		}
		if err := fn(v, vline); err != nil {
			return err
		}
	}
	return nil
}
