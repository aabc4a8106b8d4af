package record

import (
	"context"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BatchRows is the number of rows per Arrow batch a text decoder emits.
const BatchRows = 64 * 1024

// Row is one decoded attempt before it becomes an Arrow Row. has records which
// columns the file gave (bit i for stage column i); absent columns are null
// and get their defaults in SQL.
type Row struct {
	Line                                       int64
	Has                                        uint32
	Experiment, Run, Role, ReqText             string
	Req, TsUs, Count                           int64
	Attempt, Status                            int32
	TMs, Latency                               float64
	Outcome, UserID, BatchID, ClientID, Reason string
	Attrs, Group                               string
	Tagged, Retried                            bool
	// Raw are the canonical columns a --map sets whose source fields are
	// kept undecoded, in attrs under their own names (mapraw.go); kept
	// across reset
	Raw *FieldSet
}

func (r *Row) Set(col int)      { r.Has |= 1 << col }
func (r *Row) Is(col int) bool  { return r.Has&(1<<col) != 0 }
func (r *Row) Reset(line int64) { *r = Row{Line: line, Raw: r.Raw} }

// Builder appends rows to Arrow builders and cuts record batches. A run of
// nulls in a column is appended at once (AppendNulls, before the column's
// next value or at the cut): most columns of most rows are absent, and one
// AppendNull per cell was a tenth of an NDJSON ingest.
type Builder struct {
	b           *array.RecordBuilder
	n           int
	ord         int64
	OrdFromLine bool  // one row per line (NDJSON, CSV): the line orders rows
	LineBase    int64 // with ordFromLine, the order is line - lineBase
	nulls       [NumCols]int
}

func NewBuilder() *Builder { return NewBuilderFor(BatchRows) }

// NewBuilderFor reserves room for rows rows (a chunk's line count: most
// chunks hold fewer than BatchRows, and the columns of BatchRows rows
// were allocated and zeroed for each), and for each text column the
// bytes per row the last batch cut held (dataHint), so its values are
// not copied at every doubling of their buffer.
func NewBuilderFor(rows int) *Builder {
	b := array.NewRecordBuilder(memory.DefaultAllocator, Schema)
	bt := &Builder{b: b}
	bt.reserve(min(rows, BatchRows))
	return bt
}

func (bt *Builder) reserve(rows int) {
	given := givenHint.Load()
	for col, f := range bt.b.Fields() {
		if given&(1<<col) == 0 {
			continue // null on every row of the last batch: grown if given
		}
		f.Reserve(rows)
		if sb, ok := f.(*array.StringBuilder); ok {
			if per := dataHint[col].Load(); per > 0 {
				sb.ReserveData(int(min(int64(rows)*per/16, maxDataHint)))
			}
		}
	}
}

// dataHint is, for each text column, the value bytes per 16 rows of the
// last batch any Builder cut; maxDataHint caps what a column reserves.
var dataHint [NumCols]atomic.Int64

// givenHint is the columns (bit i for column i) the last batch any
// Builder cut held a value in: the others are not reserved. At first,
// all of them.
var givenHint = func() *atomic.Uint32 {
	var h atomic.Uint32
	h.Store(1<<NumCols - 1)
	return &h
}()

const maxDataHint = 64 << 20

func (bt *Builder) Append(r *Row) {
	f := bt.b.Fields()
	f[ColLine].(*array.Int64Builder).Append(r.Line)
	appendCol[*array.StringBuilder](bt, f, r, ColExperiment, r.Experiment)
	appendCol[*array.StringBuilder](bt, f, r, ColRun, r.Run)
	appendCol[*array.StringBuilder](bt, f, r, ColRole, r.Role)
	appendCol[*array.Int64Builder](bt, f, r, ColReq, r.Req)
	appendCol[*array.StringBuilder](bt, f, r, ColReqText, r.ReqText)
	appendCol[*array.Int32Builder](bt, f, r, ColAttempt, r.Attempt)
	appendCol[*array.Float64Builder](bt, f, r, ColTMs, r.TMs)
	appendCol[*array.Int64Builder](bt, f, r, ColTsUs, r.TsUs)
	appendCol[*array.Float64Builder](bt, f, r, ColLatency, r.Latency)
	appendCol[*array.StringBuilder](bt, f, r, ColOutcome, r.Outcome)
	appendCol[*array.Int32Builder](bt, f, r, ColStatus, r.Status)
	appendCol[*array.BooleanBuilder](bt, f, r, ColTagged, r.Tagged)
	appendCol[*array.StringBuilder](bt, f, r, ColUserID, r.UserID)
	appendCol[*array.StringBuilder](bt, f, r, ColBatchID, r.BatchID)
	appendCol[*array.StringBuilder](bt, f, r, ColClientID, r.ClientID)
	appendCol[*array.BooleanBuilder](bt, f, r, ColRetried, r.Retried)
	appendCol[*array.StringBuilder](bt, f, r, ColDropReason, r.Reason)
	appendCol[*array.Int64Builder](bt, f, r, ColCount, r.Count)
	appendCol[*array.StringBuilder](bt, f, r, ColAttrs, r.Attrs)
	appendCol[*array.StringBuilder](bt, f, r, ColGroup, r.Group)
	if bt.OrdFromLine {
		f[ColOrd].(*array.Int64Builder).Append(r.Line - bt.LineBase)
	} else {
		f[ColOrd].(*array.Int64Builder).Append(bt.ord)
		bt.ord++
	}
	bt.n++
}

func (bt *Builder) Full() bool { return bt.n >= BatchRows }

// Flush returns the rows appended so far as a record batch, or nil when empty.
func (bt *Builder) Flush() arrow.RecordBatch {
	if bt.n == 0 {
		return nil
	}
	n := bt.n
	bt.n = 0
	f := bt.b.Fields()
	cols := make([]arrow.Array, NumCols)
	given := uint32(1<<ColLine | 1<<ColOrd)
	for col := range bt.nulls {
		if bt.nulls[col] == n && n <= BatchRows {
			// null on every row (most columns of most files): one shared
			// array of zeros, not n nulls appended, allocated, handed on
			bt.nulls[col] = 0
			cols[col] = nullColumn(Schema.Field(col).Type, n)
			continue
		}
		given |= 1 << col
		bt.fillNulls(f, col)
		if sb, ok := f[col].(*array.StringBuilder); ok {
			dataHint[col].Store(int64(sb.DataLen()) * 16 / int64(n))
		}
		cols[col] = f[col].NewArray()
	}
	givenHint.Store(given)
	rb := array.NewRecordBatch(Schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rb
}

// zeros backs every all-null column (nullColumn): never written, so
// shared by all of them.
var zeros = make([]byte, (BatchRows+1)*8)

// nullColumn is an all-null array of type t (a stage column's) and n <=
// BatchRows rows: its validity bitmap, values and offsets all zeros.
func nullColumn(t arrow.DataType, n int) arrow.Array {
	z := memory.NewBufferBytes(zeros)
	bufs := []*memory.Buffer{z, z}
	if t.ID() == arrow.STRING {
		bufs = append(bufs, z)
	}
	data := array.NewData(t, n, bufs, nil, n, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// fillNulls appends column col's pending nulls, at the cut or before the
// column's next value.
func (bt *Builder) fillNulls(f []array.Builder, col int) {
	if n := bt.nulls[col]; n > 0 {
		f[col].AppendNulls(n)
		bt.nulls[col] = 0
	}
}

// has reports whether the row gives column col; when it does, the column's
// pending nulls are appended first, so the caller appends the value next.
func (bt *Builder) has(f []array.Builder, r *Row, col int) bool {
	if !r.Is(col) {
		bt.nulls[col]++
		return false
	}
	bt.fillNulls(f, col)
	return true
}

// appendCol appends v to column col, whose builder is a B, when the row
// gives the column: one function for the columns of every type.
func appendCol[B interface{ Append(T) }, T any](bt *Builder, f []array.Builder, r *Row, col int, v T) {
	if bt.has(f, r, col) {
		f[col].(B).Append(v)
	}
}

func (bt *Builder) Release() { bt.b.Release() }

// Produce is a decoder: it sends batches with emit until the input ends.
type Produce func(ctx context.Context, emit func(arrow.RecordBatch) error) error

// Rows adapts a decoder that yields one canonical row at a time: add
// appends the row (copying it) and cuts a batch every batchRows Rows.
// Rows are ordered as added.
func Rows(fn func(ctx context.Context, add func(*Row) error) error) Produce {
	return func(ctx context.Context, emit func(arrow.RecordBatch) error) error {
		bt := NewBuilder()
		defer bt.Release()
		err := fn(ctx, func(r *Row) error {
			bt.Append(r)
			if bt.Full() {
				return emit(bt.Flush())
			}
			return nil
		})
		if err != nil {
			return err
		}
		if rb := bt.Flush(); rb != nil {
			return emit(rb)
		}
		return nil
	}
}
