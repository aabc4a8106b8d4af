package ingest

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rewind-dev/rewind/ingest/record"
)

// NDJSON and CSV are decoded in parallel (decodeChunks): the file is cut
// into chunks where a record ends, workers decode chunks into Arrow
// batches, and the batches are emitted in file order. A row's order key
// is its line.
// (A variable only so that tests can cut small inputs into many chunks.)
var chunkBytes = 4 << 20

// chunkPool recycles chunk buffers once their chunk is decoded (the batches
// hold copies): a fresh 4 MiB buffer per chunk was zeroed by make and
// faulted in page by page by the read into it, 1.1 GB of each at 10 M rows.
var chunkPool sync.Pool

func chunkBuf(n int) []byte {
	if b, ok := chunkPool.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]byte, n, n+carrySlack)
}

// carrySlack is room for the part line carried into the next chunk.
const carrySlack = 64 << 10

func putChunkBuf(b []byte) {
	if cap(b) >= chunkBytes {
		b = b[:0]
		chunkPool.Put(&b)
	}
}

type fileChunk struct {
	data      []byte
	firstLine int64
	out       chan chunkResult
}

type chunkResult struct {
	batches []arrow.RecordBatch
	c       *collector
	err     error
}

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
	return decodeChunks(in, 1, lineEnd, 0, func(ch fileChunk) chunkResult { return decodeNDJSONChunk(ch, raw) }, c)
}

// lineEnd is where a chunk of NDJSON may end: after its last line end (0
// when a line is longer than the chunk).
func lineEnd(buf []byte) int { return bytes.LastIndexByte(buf, '\n') + 1 }

// decodeChunks decodes in parallel: the input, its first line numbered
// firstLine, is cut into chunks where cut says a record ends, workers
// decode chunks into Arrow batches (with collectors of their own, merged
// into c, when decode gives one), and the batches are emitted in file
// order. A record longer than maxRecord (0: no cap; a line's is the input's
// guard) fails at its first line.
func decodeChunks(in io.Reader, firstLine int64, cut func([]byte) int, maxRecord int64, decode func(fileChunk) chunkResult, c *collector) record.Produce {
	return func(ctx context.Context, emit func(arrow.RecordBatch) error) error {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		work := make(chan fileChunk)
		order := make(chan fileChunk, 2*runtime.GOMAXPROCS(0))
		splitErr := make(chan error, 1)
		go func() { splitErr <- splitChunks(ctx, in, firstLine, cut, maxRecord, work, order) }()
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			go func() {
				for ch := range work {
					ch.out <- decode(ch)
				}
			}()
		}
		for ch := range order {
			res := <-ch.out
			putChunkBuf(ch.data)
			if res.err != nil {
				cancel()
				drain(order)
				return res.err
			}
			if res.c != nil { // NDJSON's; CSV chunks gather no events
				c.absorb(res.c)
			}
			for i, rb := range res.batches {
				if err := emit(rb); err != nil {
					releaseAll(res.batches[i+1:])
					cancel()
					drain(order)
					return err
				}
			}
		}
		return <-splitErr
	}
}

// splitChunks cuts the input into chunks that end where cut says a record
// ends and hands each to a worker (work) and, in file order, to the merger
// (order). Every chunk sent to order gets a result on its out: a worker's,
// or the cancellation's when the splitter stops before a worker took it.
func splitChunks(ctx context.Context, in io.Reader, line int64, cut func([]byte) int, maxRecord int64, work, order chan<- fileChunk) error {
	defer close(order)
	defer close(work)
	var carry []byte
	for {
		// a record longer than a chunk (a stray quote in a CSV makes the
		// rest of the file one) is read in growing steps, so carrying it
		// costs linear time, not quadratic
		buf := chunkBuf(len(carry) + max(chunkBytes, len(carry)))
		copy(buf, carry)
		n, err := io.ReadFull(in, buf[len(carry):])
		buf = buf[:len(carry)+n]
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			return err
		}
		end := len(buf)
		if !eof {
			end = cut(buf) // 0: a record longer than the chunk
		}
		carry = append([]byte(nil), buf[end:]...)
		if maxRecord > 0 && int64(len(carry)) > maxRecord {
			putChunkBuf(buf)
			return record.LineErr(line+int64(bytes.Count(buf[:end], []byte{'\n'})), "record longer than %s: {max-record} raises the cap", record.SizeText(maxRecord))
		}
		if end > 0 {
			ch := fileChunk{data: buf[:end], firstLine: line, out: make(chan chunkResult, 1)}
			line += int64(bytes.Count(ch.data, []byte{'\n'}))
			select {
			case order <- ch:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case work <- ch:
			case <-ctx.Done():
				// the merger waits for every chunk in order: this one
				// gets its result here (out holds one)
				ch.out <- chunkResult{err: ctx.Err()}
				return ctx.Err()
			}
		}
		if eof {
			return nil
		}
	}
}

// decodeNDJSONChunk decodes one chunk's lines, with a collector of its own.
func decodeNDJSONChunk(ch fileChunk, raw *record.FieldSet) chunkResult {
	c := newCollector()
	r := record.Row{Raw: raw}
	data, line := ch.data, ch.firstLine
	batches, err := chunkBatches(0, data, func(bt *record.Builder) (bool, error) {
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
		return chunkResult{err: err}
	}
	return chunkResult{batches: batches, c: c}
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

// chunkBatches is a chunk decoder's loop over data: next decodes the
// chunk's next record into bt, if it has one, and says whether it had; a
// batch is cut every batchRows rows, sized for the chunk's lines. A row's
// order is its line less lineBase. On an error the batches cut so far are
// released.
func chunkBatches(lineBase int64, data []byte, next func(bt *record.Builder) (bool, error)) ([]arrow.RecordBatch, error) {
	bt := record.NewBuilderFor(bytes.Count(data, []byte{'\n'}) + 1)
	defer bt.Release()
	bt.OrdFromLine, bt.LineBase = true, lineBase
	var out []arrow.RecordBatch
	for {
		more, err := next(bt)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		if !more {
			break
		}
		if bt.Full() {
			out = append(out, bt.Flush())
		}
	}
	if rb := bt.Flush(); rb != nil {
		out = append(out, rb)
	}
	return out, nil
}

func drain(order <-chan fileChunk) {
	for ch := range order {
		res := <-ch.out
		releaseAll(res.batches)
		if res.c != nil {
			res.c.release()
		}
	}
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
