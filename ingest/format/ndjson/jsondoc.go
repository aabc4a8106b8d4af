package ndjson

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/rewind-dev/rewind/ingest/record"
)

// decodeJSONArray reads a JSON array of canonical objects.
func decodeJSONArray(data []byte, c record.Sink) record.Produce {
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		d := record.NewDoc(data)
		var r record.Row
		n := 0
		err := d.EachElement(func(raw json.RawMessage, line int64) error {
			if n++; raw[0] != '{' {
				return record.LineErr(line, "element %d of the array: want a JSON object (one canonical record), got %s", n, describeElement(raw))
			}
			return addObject(&r, raw, line, c, add)
		})
		if err != nil {
			return err
		}
		return d.Trailing()
	})
}

// describeElement names an array element that is no object: `number 5`,
// `array [1,2]`, `"text"`, `null`.
func describeElement(raw []byte) string {
	if raw[0] == '[' {
		return "array " + record.Truncate(string(raw), 40)
	}
	return record.JSONVal(raw).Describe()
}

// decodeJSONStream reads canonical objects written one after the other,
// each over as many lines as it takes (jq's pretty-printed output of an
// NDJSON log): each record's errors name the line where it starts.
func decodeJSONStream(data []byte, c record.Sink) record.Produce {
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		d := record.NewDoc(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
		var r record.Row
		for n := 1; d.Dec.More(); n++ {
			if n%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			raw, line, err := d.Element()
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
		return d.Trailing()
	})
}

// addObject decodes a canonical object that starts on line into r and adds
// it when it is a request (other records go to c), for both JSON document
// readers above.
func addObject(r *record.Row, raw json.RawMessage, line int64, c record.Sink, add func(*record.Row) error) error {
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
