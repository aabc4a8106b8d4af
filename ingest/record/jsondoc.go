package record

import (
	"bytes"
	"encoding/json"
	"io"
)

// Doc walks a whole-document JSON file (a JSON array of records, the chaos
// seed's gunluk.json, a HAR or an OTLP export) with a token decoder, so each
// element can be given the line it starts on. Data is the document; Dec
// reads it (its InputOffset is Data's).
type Doc struct {
	Data []byte
	Dec  *json.Decoder
	// lines counted up to off, so line lookups stay linear overall
	off  int
	line int64
}

// NewDoc reads data, a document that starts on line 1.
func NewDoc(data []byte) *Doc {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return &Doc{Data: data, Dec: d, line: 1}
}

// LineAt returns the 1-based line of byte offset o (o never decreases).
func (d *Doc) LineAt(o int) int64 {
	for ; d.off < o && d.off < len(d.Data); d.off++ {
		if d.Data[d.off] == '\n' {
			d.line++
		}
	}
	return d.line
}

// ElementLine is the line where the next value starts (after whitespace and commas).
func (d *Doc) ElementLine() int64 {
	o := int(d.Dec.InputOffset())
	for o < len(d.Data) && (d.Data[o] == ' ' || d.Data[o] == '\n' || d.Data[o] == '\r' || d.Data[o] == '\t' || d.Data[o] == ',') {
		o++
	}
	return d.LineAt(o)
}

// SyntaxErr is err, the decoder's, as a bad JSON error at its line.
func (d *Doc) SyntaxErr(err error) error {
	line := d.LineAt(int(d.Dec.InputOffset()))
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return LineErr(line, "bad JSON: unexpected end of file (truncated?)")
	}
	return LineErr(line, "bad JSON: %v", err)
}

// ExpectDelim reads the next token, which must be want.
func (d *Doc) ExpectDelim(want json.Delim) error {
	t, err := d.Dec.Token()
	if err != nil {
		return d.SyntaxErr(err)
	}
	if t != want {
		return LineErr(d.LineAt(int(d.Dec.InputOffset())), "bad JSON: want %q, got %v", want, t)
	}
	return nil
}

// EachElement calls fn for every element of the array that starts next.
func (d *Doc) EachElement(fn func(raw json.RawMessage, line int64) error) error {
	if err := d.ExpectDelim('['); err != nil {
		return err
	}
	for d.Dec.More() {
		raw, line, err := d.Element()
		if err != nil {
			return err
		}
		if err := fn(raw, line); err != nil {
			return err
		}
	}
	if _, err := d.Dec.Token(); err != nil {
		return d.SyntaxErr(err)
	}
	return nil
}

// Element decodes the next top-level record with the line it starts on,
// for the readers of a document of records (EachElement, the ingest's
// stream of JSON objects).
func (d *Doc) Element() (json.RawMessage, int64, error) {
	line := d.ElementLine()
	var raw json.RawMessage
	if err := d.Dec.Decode(&raw); err != nil {
		return nil, 0, d.SyntaxErr(err)
	}
	return raw, line, nil
}

// Trailing refuses anything after the document.
func (d *Doc) Trailing() error {
	if _, err := d.Dec.Token(); err != io.EOF {
		return LineErr(d.LineAt(int(d.Dec.InputOffset())), "bad JSON: unexpected data after the end of the document")
	}
	return nil
}

// Walking JSON documents value by value keeps each value's line: the
// helpers below are shared by the document formats that need lines deeper
// than a top-level array (OTLP, Jaeger, Zipkin, Chaos Toolkit).

// Value decodes the next value and returns it with the line it starts on.
func (d *Doc) Value() (json.RawMessage, int64, error) {
	var raw json.RawMessage
	if err := d.Dec.Decode(&raw); err != nil {
		if err == io.ErrUnexpectedEOF {
			d.LineAt(len(d.Data)) // the truncation is at the end, not where the value starts
		}
		return nil, 0, d.SyntaxErr(err)
	}
	return raw, d.LineAt(int(d.Dec.InputOffset()) - len(raw)), nil
}

// RawAt is a JSON value and the line it starts on.
type RawAt struct {
	Raw  json.RawMessage
	Line int64
}

// SubDoc reads raw, a value that starts on line.
func SubDoc(raw json.RawMessage, line int64) *Doc {
	d := NewDoc(raw)
	d.line = line
	return d
}

// WalkObject calls fn with each member of the object raw (on line), with
// the line its value starts on. null is an empty object.
func WalkObject(raw json.RawMessage, line int64, fn func(key string, v json.RawMessage, line int64) error) error {
	if JSONVal(raw).Kind == 'z' {
		return nil
	}
	if raw[0] != '{' {
		return LineErr(line, "want a JSON object, got %s", JSONVal(raw).Describe())
	}
	d := SubDoc(raw, line)
	if _, err := d.Dec.Token(); err != nil {
		return d.SyntaxErr(err)
	}
	for d.Dec.More() {
		t, err := d.Dec.Token()
		if err != nil {
			return d.SyntaxErr(err)
		}
		v, vline, err := d.Value()
		if err != nil {
			return err
		}
		if err := fn(t.(string), v, vline); err != nil {
			return err
		}
	}
	return nil
}

// WalkArray calls fn with each element of the array raw (the value of
// field name, on line). null is an empty array.
func WalkArray(raw json.RawMessage, line int64, name string, fn func(v json.RawMessage, line int64) error) error {
	if JSONVal(raw).Kind == 'z' {
		return nil
	}
	if raw[0] != '[' {
		return FieldErr(line, name, "want an array, got %s", JSONVal(raw).Describe())
	}
	d := SubDoc(raw, line)
	if _, err := d.Dec.Token(); err != nil {
		return d.SyntaxErr(err)
	}
	for d.Dec.More() {
		v, vline, err := d.Value()
		if err != nil {
			return err
		}
		if err := fn(v, vline); err != nil {
			return err
		}
	}
	return nil
}

// TopKeys lists the members of the JSON object head starts with, as far as
// head reaches (the head is cut at 64 KiB: a member it cuts ends the list).
func TopKeys(head []byte) map[string]bool {
	t := JSONText(head)
	if len(t) == 0 || t[0] != '{' {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(t))
	keys := map[string]bool{}
	if _, err := d.Token(); err != nil {
		return nil
	}
	for d.More() {
		tok, err := d.Token()
		k, ok := tok.(string)
		if err != nil || !ok {
			break
		}
		keys[k] = true
		var skip json.RawMessage
		if d.Decode(&skip) != nil {
			break
		}
	}
	return keys
}
