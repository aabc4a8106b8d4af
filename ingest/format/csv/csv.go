package csv

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rewind-dev/rewind/ingest/record"
)

// decodeCSVInput is the csv format's decode.
func decodeCSVInput(in record.Input, _ record.Sink) (record.Produce, error) {
	return decodeCSV(in.Reader(), in.MaxRecord(), in.MapRaw()), nil
}

// decodeCSV reads a CSV file with a header row. Columns the schema names are
// parsed by type; other columns are kept in attrs as strings. An empty cell
// is a missing value.
//
// The records after the header are decoded in parallel, like NDJSON: the
// file is cut into chunks where a record ends (a line end outside quotes:
// with quotes doubled inside a quoted field, one after an even number of
// quotes), and each chunk is read by its own csv.Reader. A chunk starts
// where a record starts, so up to a file's first malformed quote every
// chunk reads as the whole file would, and that first error is the one
// reported. A header that does not end within the first chunk is read
// record by record, as one reader.
func decodeCSV(in io.Reader, maxRecord int64, raw *record.FieldSet) record.Produce {
	return func(ctx context.Context, emit func(arrow.RecordBatch) error) error {
		br := bufio.NewReaderSize(in, record.ChunkBytes)
		head, err := br.Peek(record.ChunkBytes)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return err
		}
		cr := csv.NewReader(bytes.NewReader(head))
		header, herr := cr.Read()
		end := int(cr.InputOffset())
		whole := len(head) < record.ChunkBytes // the file is all in head
		if herr != nil && whole {
			return record.CSVErr(cr, herr)
		}
		if herr != nil || (!whole && (end == 0 || head[end-1] != '\n')) {
			return decodeCSVRecords(br, maxRecord, raw)(ctx, emit) // a header past the first chunk
		}
		names, sets := csvColumns(header, raw)
		first := 1 + int64(bytes.Count(head[:end], []byte{'\n'}))
		if _, err := br.Discard(end); err != nil {
			return err
		}
		return record.Chunks(br, first, recordEnd, maxRecord, func(ch record.Chunk) record.ChunkResult {
			return decodeCSVChunk(ch, first, names, sets)
		})(ctx, emit)
	}
}

// decodeCSVRecords reads the whole file with one csv.Reader, its records
// capped at maxRecord.
func decodeCSVRecords(in io.Reader, maxRecord int64, raw *record.FieldSet) record.Produce {
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		cr, rc := record.CappedCSV(in, maxRecord, ',')
		cr.ReuseRecord = true
		header, err := cr.Read()
		if err != nil {
			return record.CSVErr(cr, err)
		}
		names, sets := csvColumns(header, raw)
		rc.Header(names)
		var r record.Row
		return record.EachRecord(ctx, cr, func(line int64, rec []string) error {
			r.Reset(line)
			if err := csvRow(&r, names, sets, rec); err != nil {
				return err
			}
			return add(&r)
		})
	})
}

// csvColumns names the header's columns and looks up their setters, once
// per column rather than per cell; a column named in raw has none (it is
// kept in attrs).
func csvColumns(header []string, raw *record.FieldSet) ([]string, []record.Setter) {
	names := make([]string, len(header))
	sets := make([]record.Setter, len(header))
	for i, h := range header {
		names[i] = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if !raw.Has(names[i]) {
			sets[i] = record.SetterOf(names[i])
		}
	}
	return names, sets
}

// recordEnd is where a chunk of CSV may end: after its last line end
// outside quotes (0 when a record is longer than the chunk). A chunk starts
// outside quotes, and every quote toggles (a doubled quote twice).
func recordEnd(buf []byte) int {
	end, pos, quoted := 0, 0, false
	for {
		q := bytes.IndexByte(buf[pos:], '"')
		seg := buf[pos:]
		if q >= 0 {
			seg = seg[:q]
		}
		if !quoted {
			if nl := bytes.LastIndexByte(seg, '\n'); nl >= 0 {
				end = pos + nl + 1
			}
		}
		if q < 0 {
			return end
		}
		quoted = !quoted
		pos += q + 1
	}
}

// decodeCSVChunk reads one chunk's records into batches; lines count from
// the chunk's first. A row's order is its line less the first record's
// (first): in a file of one line per record, its record number from 0, as
// one reader numbers them.
func decodeCSVChunk(ch record.Chunk, first int64, names []string, sets []record.Setter) record.ChunkResult {
	cr := csv.NewReader(bytes.NewReader(ch.Data))
	cr.ReuseRecord = true
	cr.FieldsPerRecord = len(names)
	var r record.Row
	batches, err := record.ChunkBatches(first, ch.Data, func(bt *record.Builder) (bool, error) {
		rec, err := cr.Read()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, record.CSVErrAt(ch.FirstLine, err)
		}
		line, _ := cr.FieldPos(0)
		r.Reset(ch.FirstLine + int64(line) - 1)
		if err := csvRow(&r, names, sets, rec); err != nil {
			return false, err
		}
		bt.Append(&r)
		return true, nil
	})
	return record.ChunkResult{Batches: batches, Err: err}
}

func csvRow(r *record.Row, names []string, sets []record.Setter, rec []string) error {
	var extra map[string]json.RawMessage
	for i, cell := range rec {
		if sets[i] != nil {
			if err := record.ApplySetter(r, names[i], sets[i], record.Val{Kind: 't', Text: cell}); err != nil {
				return err
			}
			continue
		}
		if cell != "" {
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			b, _ := json.Marshal(cell)
			extra[names[i]] = b
		}
	}
	if extra != nil {
		r.Attrs = record.CompactObject(extra)
		r.Set(record.ColAttrs)
	}
	return nil
}
