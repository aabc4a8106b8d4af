package ndjson

import (
	"bytes"
	"io"

	"github.com/rewind-dev/rewind/ingest/record"
)

// decodeNDJSONInput is the ndjson format's decode: a stream of
// pretty-printed objects (spansLines) is read as a document, lines in
// parallel otherwise.
func decodeNDJSONInput(in record.Input, c record.Sink) (record.Produce, error) {
	if spansLines(in.Head()) {
		return wholeDoc(decodeJSONStream)(in, c)
	}
	return decodeNDJSON(in.Reader(), c, in.MapRaw()), nil
}

// decodeNDJSON reads one JSON object per line. Blank lines are skipped.
// The fields named in raw are kept undecoded, in attrs.
func decodeNDJSON(in io.Reader, c record.Sink, raw *record.FieldSet) record.Produce {
	return record.Chunks(in, 1, record.LineEnd, 0, func(ch record.Chunk) record.ChunkResult { return decodeNDJSONChunk(ch, raw, c) })
}

// decodeNDJSONChunk decodes one chunk's lines, with a collector of its own
// that is passed on to file, the file's Sink, in order.
func decodeNDJSONChunk(ch record.Chunk, raw *record.FieldSet, file record.Sink) record.ChunkResult {
	c := new(collector)
	r := record.Row{Raw: raw}
	data, line := ch.Data, ch.FirstLine
	batches, err := record.ChunkBatches(0, data, func(bt *record.Builder) (bool, error) {
		skip, blank := blankLines(data)
		data, line = data[skip:], line+blank
		if len(data) == 0 {
			return false, nil
		}
		b, rest := record.CutLine(data)
		err := decodeLine(bytes.TrimSpace(b), line, &r, c, bt)
		data, line = rest, line+1
		return true, err
	})
	if err != nil {
		return record.ChunkResult{Err: err}
	}
	return record.ChunkResult{Batches: batches, Done: func() { c.passOn(file) }}
}

// blankLines is how many bytes of blank lines (white space only) data
// starts with, and how many line feeds they hold: a run of them is passed
// over in one loop, not decoded line by line.
func blankLines(data []byte) (skip int, lines int64) {
	last := 0
	for i, b := range data {
		switch b {
		case '\n':
			lines++
			last = i + 1
		case ' ', '\t', '\r':
		default:
			return last, lines
		}
	}
	return last, lines
}

func decodeLine(b []byte, line int64, r *record.Row, c record.Sink, bt *record.Builder) error {
	if len(b) == 0 {
		return nil
	}
	r.Reset(line)
	if b[0] != '{' {
		return record.LineErr(line, "bad JSON: want an object starting with '{', got %q", record.Truncate(string(b), 20))
	}
	if scanFlat(b, r) {
		bt.Append(r)
		return nil
	}
	r.Reset(line)
	isReq, err := decodeObject(b, r, c)
	if err != nil {
		return err
	}
	if isReq {
		bt.Append(r)
	}
	return nil
}
