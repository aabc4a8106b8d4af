package ingest

import (
	"bytes"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rewind-dev/rewind/ingest/record"
)

// decodeNDJSONInput is the ndjson format's decode: a stream of
// pretty-printed objects (spansLines) is read as a document, lines in
// parallel otherwise.
func decodeNDJSONInput(in *input, c *collector) (record.Produce, error) {
	if spansLines(in.head) {
		return wholeDoc(decodeJSONStream)(in, c)
	}
	return decodeNDJSON(in.Reader(), c, in.mapRaw), nil
}

// decodeNDJSON reads one JSON object per line. Blank lines are skipped.
// The fields named in raw are kept undecoded, in attrs.
func decodeNDJSON(in io.Reader, c *collector, raw *record.FieldSet) record.Produce {
	return record.Chunks(in, 1, record.LineEnd, 0, func(ch record.Chunk) record.ChunkResult { return decodeNDJSONChunk(ch, raw, c) })
}

// decodeNDJSONChunk decodes one chunk's lines, with a collector of its own
// that file, the file's, absorbs in order.
func decodeNDJSONChunk(ch record.Chunk, raw *record.FieldSet, file *collector) record.ChunkResult {
	c := newCollector()
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
		c.release()
		return record.ChunkResult{Err: err}
	}
	return record.ChunkResult{Batches: batches, Done: func() { file.absorb(c) }, Drop: c.release}
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

func releaseAll(rbs []arrow.RecordBatch) {
	for _, rb := range rbs {
		rb.Release()
	}
}

func decodeLine(b []byte, line int64, r *record.Row, c *collector, bt *record.Builder) error {
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
