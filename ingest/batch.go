package ingest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// batchRows is the number of rows per Arrow batch a text decoder emits.
const batchRows = 64 * 1024

// row is one decoded attempt before it becomes an Arrow row. has records which
// columns the file gave (bit i for stage column i); absent columns are null
// and get their defaults in SQL.
type row struct {
	line                                       int64
	has                                        uint32
	experiment, run, role, reqText             string
	req, tsUs, count                           int64
	attempt, status                            int32
	tMs, latency                               float64
	outcome, userID, batchID, clientID, reason string
	attrs, group                               string
	tagged, retried                            bool
	// raw are the canonical columns a --map sets whose source fields are
	// kept undecoded, in attrs under their own names (mapraw.go); kept
	// across reset
	raw *fieldSet
}

func (r *row) set(col int)      { r.has |= 1 << col }
func (r *row) is(col int) bool  { return r.has&(1<<col) != 0 }
func (r *row) reset(line int64) { *r = row{line: line, raw: r.raw} }

// batcher appends rows to Arrow builders and cuts record batches. A run of
// nulls in a column is appended at once (AppendNulls, before the column's
// next value or at the cut): most columns of most rows are absent, and one
// AppendNull per cell was a tenth of an NDJSON ingest.
type batcher struct {
	b           *array.RecordBuilder
	n           int
	ord         int64
	ordFromLine bool  // one row per line (NDJSON, CSV): the line orders rows
	lineBase    int64 // with ordFromLine, the order is line - lineBase
	nulls       [numStageCols]int
}

func newBatcher() *batcher { return newBatcherFor(batchRows) }

// newBatcherFor reserves room for rows rows (a chunk's line count: most
// chunks hold fewer than batchRows, and the columns of batchRows rows
// were allocated and zeroed for each), and for each text column the
// bytes per row the last batch cut held (dataHint), so its values are
// not copied at every doubling of their buffer.
func newBatcherFor(rows int) *batcher {
	b := array.NewRecordBuilder(memory.DefaultAllocator, stageSchema)
	bt := &batcher{b: b}
	bt.reserve(min(rows, batchRows))
	return bt
}

func (bt *batcher) reserve(rows int) {
	for col, f := range bt.b.Fields() {
		f.Reserve(rows)
		if sb, ok := f.(*array.StringBuilder); ok {
			if per := dataHint[col].Load(); per > 0 {
				sb.ReserveData(int(min(int64(rows)*per/16, maxDataHint)))
			}
		}
	}
}

// dataHint is, for each text column, the value bytes per 16 rows of the
// last batch any batcher cut; maxDataHint caps what a column reserves.
var dataHint [numStageCols]atomic.Int64

const maxDataHint = 64 << 20

func (bt *batcher) append(r *row) {
	f := bt.b.Fields()
	f[colLine].(*array.Int64Builder).Append(r.line)
	appendCol[*array.StringBuilder](bt, f, r, colExperiment, r.experiment)
	appendCol[*array.StringBuilder](bt, f, r, colRun, r.run)
	appendCol[*array.StringBuilder](bt, f, r, colRole, r.role)
	appendCol[*array.Int64Builder](bt, f, r, colReq, r.req)
	appendCol[*array.StringBuilder](bt, f, r, colReqText, r.reqText)
	appendCol[*array.Int32Builder](bt, f, r, colAttempt, r.attempt)
	appendCol[*array.Float64Builder](bt, f, r, colTMs, r.tMs)
	appendCol[*array.Int64Builder](bt, f, r, colTsUs, r.tsUs)
	appendCol[*array.Float64Builder](bt, f, r, colLatency, r.latency)
	appendCol[*array.StringBuilder](bt, f, r, colOutcome, r.outcome)
	appendCol[*array.Int32Builder](bt, f, r, colStatus, r.status)
	appendCol[*array.BooleanBuilder](bt, f, r, colTagged, r.tagged)
	appendCol[*array.StringBuilder](bt, f, r, colUserID, r.userID)
	appendCol[*array.StringBuilder](bt, f, r, colBatchID, r.batchID)
	appendCol[*array.StringBuilder](bt, f, r, colClientID, r.clientID)
	appendCol[*array.BooleanBuilder](bt, f, r, colRetried, r.retried)
	appendCol[*array.StringBuilder](bt, f, r, colDropReason, r.reason)
	appendCol[*array.Int64Builder](bt, f, r, colCount, r.count)
	appendCol[*array.StringBuilder](bt, f, r, colAttrs, r.attrs)
	appendCol[*array.StringBuilder](bt, f, r, colGroup, r.group)
	if bt.ordFromLine {
		f[colOrd].(*array.Int64Builder).Append(r.line - bt.lineBase)
	} else {
		f[colOrd].(*array.Int64Builder).Append(bt.ord)
		bt.ord++
	}
	bt.n++
}

func (bt *batcher) full() bool { return bt.n >= batchRows }

// flush returns the rows appended so far as a record batch, or nil when empty.
func (bt *batcher) flush() arrow.RecordBatch {
	if bt.n == 0 {
		return nil
	}
	n := bt.n
	bt.n = 0
	f := bt.b.Fields()
	for col := range bt.nulls {
		bt.fillNulls(f, col)
		if sb, ok := f[col].(*array.StringBuilder); ok {
			dataHint[col].Store(int64(sb.DataLen()) * 16 / int64(n))
		}
	}
	return bt.b.NewRecordBatch()
}

// fillNulls appends column col's pending nulls, at the cut or before the
// column's next value.
func (bt *batcher) fillNulls(f []array.Builder, col int) {
	if n := bt.nulls[col]; n > 0 {
		f[col].AppendNulls(n)
		bt.nulls[col] = 0
	}
}

// has reports whether the row gives column col; when it does, the column's
// pending nulls are appended first, so the caller appends the value next.
func (bt *batcher) has(f []array.Builder, r *row, col int) bool {
	if !r.is(col) {
		bt.nulls[col]++
		return false
	}
	bt.fillNulls(f, col)
	return true
}

// appendCol appends v to column col, whose builder is a B, when the row
// gives the column: one function for the columns of every type.
func appendCol[B interface{ Append(T) }, T any](bt *batcher, f []array.Builder, r *row, col int, v T) {
	if bt.has(f, r, col) {
		f[col].(B).Append(v)
	}
}

func (bt *batcher) release() { bt.b.Release() }

// stream is an array.RecordReader fed by a decoder goroutine. DuckDB pulls
// batches from it while the decoder produces the next ones, so decoding and
// inserting overlap and memory stays at a few batches. When the decoder
// fails, Next returns false and Err names the bad line; the INSERT reading
// the stream then fails and the transaction rolls back.
type stream struct {
	schema *arrow.Schema
	ch     chan arrow.RecordBatch
	cur    arrow.RecordBatch
	// first is the batch peek took from ch, for Next to return first;
	// peeked says peek ran (ended: the decoder had no batch)
	first         arrow.RecordBatch
	peeked, ended bool
	mu            sync.Mutex
	err           error
	cancel        context.CancelFunc
	done          chan struct{}
	once          sync.Once
}

// produce is a decoder: it sends batches with emit until the input ends.
type produce func(ctx context.Context, emit func(arrow.RecordBatch) error) error

func newStream(ctx context.Context, schema *arrow.Schema, p produce) *stream {
	ctx, cancel := context.WithCancel(ctx)
	s := &stream{schema: schema, ch: make(chan arrow.RecordBatch, 2), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer close(s.ch)
		// A decoder (ours or a library's) that panics on malformed input
		// fails the ingest with an error instead of the process.
		defer func() {
			if r := recover(); r != nil {
				s.mu.Lock()
				s.err = fmt.Errorf("malformed input: the decoder failed: %v", r)
				s.mu.Unlock()
			}
		}()
		err := p(ctx, func(rb arrow.RecordBatch) error {
			select {
			case s.ch <- rb:
				return nil
			case <-ctx.Done():
				rb.Release()
				return ctx.Err()
			}
		})
		if err != nil {
			s.mu.Lock()
			s.err = err
			s.mu.Unlock()
		}
	}()
	return s
}

func (s *stream) Retain()                        {}
func (s *stream) Schema() *arrow.Schema          { return s.schema }
func (s *stream) RecordBatch() arrow.RecordBatch { return s.cur }
func (s *stream) Record() arrow.RecordBatch      { return s.cur }

// peek waits for the first batch without taking it: Next returns it
// first. Nil when the decoder ended (or failed) before its first batch.
func (s *stream) peek() arrow.RecordBatch {
	if !s.peeked {
		var ok bool
		s.first, ok = <-s.ch
		s.peeked, s.ended = true, !ok
	}
	return s.first
}

func (s *stream) Next() bool {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	if s.first != nil {
		s.cur, s.first = s.first, nil
		return true
	}
	if s.ended {
		return false
	}
	rb, ok := <-s.ch
	if !ok {
		return false
	}
	s.cur = rb
	return true
}

func (s *stream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Release stops the decoder and drops undelivered batches. The cdata export
// calls it when DuckDB releases the stream; close calls it too, so it must be
// safe to call twice.
func (s *stream) Release() {
	s.once.Do(func() {
		s.cancel()
		for rb := range s.ch {
			rb.Release()
		}
		<-s.done
		if s.first != nil {
			s.first.Release()
			s.first = nil
		}
		if s.cur != nil {
			s.cur.Release()
			s.cur = nil
		}
	})
}
