package record

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// Chunks is the parallel decoder of text formats whose records are lines
// or end at a line (NDJSON, CSV, access logs): the file is cut into chunks
// where a record ends, workers decode chunks into Arrow batches, and the
// batches are emitted in file order. A row's order key is its line.

// ChunkBytes is the size of a chunk. (A variable only so that tests can
// cut small inputs into many chunks.)
var ChunkBytes = 4 << 20

// chunkPool recycles chunk buffers once their chunk is decoded (the batches
// hold copies): a fresh 4 MiB buffer per chunk was zeroed by make and
// faulted in page by page by the read into it, 1.1 GB of each at 10 M rows.
var chunkPool sync.Pool

func chunkBuf(n int) []byte {
	if b, ok := chunkPool.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]byte, n, n+CarrySlack)
}

// CarrySlack is room for the part line carried into the next chunk.
const CarrySlack = 64 << 10

func putChunkBuf(b []byte) {
	if cap(b) >= ChunkBytes {
		b = b[:0]
		chunkPool.Put(&b)
	}
}

// A Chunk is a piece of the file that ends where a record does.
type Chunk struct {
	Data      []byte
	FirstLine int64 // the line Data starts on
	out       chan ChunkResult
}

// A ChunkResult is what a worker made of a chunk.
type ChunkResult struct {
	Batches []arrow.RecordBatch
	Err     error
	// Done, when set, is called in the file's order before the chunk's
	// batches are emitted: it passes on what the chunk's decoder gathered
	// besides rows (warnings, events) to the file's Sink. Drop is called
	// instead when the batches are not emitted (an earlier chunk failed).
	Done, Drop func()
}

// LineEnd is where a chunk of lines may end: after its last line end (0
// when a line is longer than the chunk).
func LineEnd(buf []byte) int { return bytes.LastIndexByte(buf, '\n') + 1 }

// Chunks decodes in parallel: the input, its first line numbered
// firstLine, is cut into chunks where cut says a record ends, workers run
// decode on them, and the batches are emitted in file order. A record
// longer than maxRecord (0: no cap; a line's is the input's own) fails at
// its first line.
func Chunks(in io.Reader, firstLine int64, cut func([]byte) int, maxRecord int64, decode func(Chunk) ChunkResult) Produce {
	return func(ctx context.Context, emit func(arrow.RecordBatch) error) error {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		work := make(chan Chunk)
		order := make(chan Chunk, 2*runtime.GOMAXPROCS(0))
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
			putChunkBuf(ch.Data)
			if res.Err != nil {
				cancel()
				drain(order)
				return res.Err
			}
			if res.Done != nil {
				res.Done()
			}
			for i, rb := range res.Batches {
				if err := emit(rb); err != nil {
					releaseAll(res.Batches[i+1:])
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
func splitChunks(ctx context.Context, in io.Reader, line int64, cut func([]byte) int, maxRecord int64, work, order chan<- Chunk) error {
	defer close(order)
	defer close(work)
	var carry []byte
	for {
		// a record longer than a chunk (a stray quote in a CSV makes the
		// rest of the file one) is read in growing steps, so carrying it
		// costs linear time, not quadratic
		buf := chunkBuf(len(carry) + max(ChunkBytes, len(carry)))
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
			return LineErr(line+int64(bytes.Count(buf[:end], []byte{'\n'})), "record longer than %s: {max-record} raises the cap", SizeText(maxRecord))
		}
		if end > 0 {
			ch := Chunk{Data: buf[:end], FirstLine: line, out: make(chan ChunkResult, 1)}
			line += int64(bytes.Count(ch.Data, []byte{'\n'}))
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
				ch.out <- ChunkResult{Err: ctx.Err()}
				return ctx.Err()
			}
		}
		if eof {
			return nil
		}
	}
}

// ChunkBatches is a chunk decoder's loop over data: next decodes the
// chunk's next record into bt, if it has one, and says whether it had; a
// batch is cut every batchRows rows, sized for the chunk's lines. A row's
// order is its line less lineBase. On an error the batches cut so far are
// released.
func ChunkBatches(lineBase int64, data []byte, next func(bt *Builder) (bool, error)) ([]arrow.RecordBatch, error) {
	bt := NewBuilderFor(bytes.Count(data, []byte{'\n'}) + 1)
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

func drain(order <-chan Chunk) {
	for ch := range order {
		res := <-ch.out
		releaseAll(res.Batches)
		if res.Drop != nil {
			res.Drop()
		}
	}
}

func releaseAll(rbs []arrow.RecordBatch) {
	for _, rb := range rbs {
		rb.Release()
	}
}
