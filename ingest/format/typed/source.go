package typed

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	json "github.com/goccy/go-json"
	"github.com/rewind-dev/rewind/ingest/record"
)

// Typed formats (Arrow IPC, Parquet) are converted a column at a time: a
// source column of the staging type is passed through as it is, another type
// is cast with a safe cast (no truncation, no overflow); a failed cast is
// reported at the first row that cannot convert. "line" is the 1-based row.

// openArrowSource opens an Arrow IPC file or stream, or a Parquet file, as a
// record reader.
func openArrowSource(ctx context.Context, ra io.ReaderAt, size int64, format string) (array.RecordReader, func(), error) {
	mem := newBoundedAllocator(size)
	switch format {
	case ArrowName:
		if err := checkArrowMetadata(ra, size); err != nil {
			return nil, nil, record.LineErr(0, "%v", err)
		}
		if fr, err := unpanicked(func() (*ipc.FileReader, error) {
			return ipc.NewFileReader(io.NewSectionReader(ra, 0, size), ipc.WithAllocator(mem))
		}); err == nil {
			rr, err := newIPCFileRecords(fr)
			return rr, func() { fr.Close() }, err
		}
		r, err := unpanicked(func() (*ipc.Reader, error) {
			return ipc.NewReader(io.NewSectionReader(ra, 0, size), ipc.WithAllocator(mem))
		})
		if err != nil {
			return nil, nil, record.LineErr(0, "bad Arrow IPC file: %v", err)
		}
		return r, r.Release, nil
	case ParquetName:
		pf, err := file.NewParquetReader(io.NewSectionReader(ra, 0, size), file.WithReadProps(parquet.NewReaderProperties(mem)))
		if err != nil {
			return nil, nil, record.LineErr(0, "bad Parquet file: %v", err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: record.BatchRows}, mem)
		if err != nil {
			pf.Close()
			return nil, nil, record.LineErr(0, "bad Parquet file: %v", err)
		}
		rr, err := fr.GetRecordReader(ctx, nil, nil)
		if err != nil {
			pf.Close()
			return nil, nil, record.LineErr(0, "bad Parquet file: %v", err)
		}
		return rr, func() { rr.Release(); pf.Close() }, nil
	}
	return nil, nil, fmt.Errorf("not a typed format: %s", format)
}

// decodeTypedSource opens the typed file when the decoder starts and closes
// it when it ends.
func decodeTypedSource(ra io.ReaderAt, size int64, format string) record.Produce {
	return func(ctx context.Context, emit func(arrow.RecordBatch) error) error {
		src, closeSrc, err := openArrowSource(ctx, ra, size, format)
		if err != nil {
			return err
		}
		defer closeSrc()
		return decodeTyped(src)(ctx, emit)
	}
}

// ipcFileRecords iterates the record batches of an Arrow IPC file.
type ipcFileRecords struct {
	fr  *ipc.FileReader
	i   int
	cur arrow.RecordBatch
	err error
}

func newIPCFileRecords(fr *ipc.FileReader) (*ipcFileRecords, error) {
	return &ipcFileRecords{fr: fr}, nil
}

func (r *ipcFileRecords) Retain()                        {}
func (r *ipcFileRecords) Release()                       {}
func (r *ipcFileRecords) Schema() *arrow.Schema          { return r.fr.Schema() }
func (r *ipcFileRecords) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *ipcFileRecords) Record() arrow.RecordBatch      { return r.cur }
func (r *ipcFileRecords) Err() error                     { return r.err }
func (r *ipcFileRecords) Next() bool {
	if r.i >= r.fr.NumRecords() {
		return false
	}
	r.cur, r.err = r.fr.RecordBatch(r.i)
	r.i++
	return r.err == nil
}

// decodeTyped converts the batches of src into staging batches.
func decodeTyped(src array.RecordReader) record.Produce {
	return func(ctx context.Context, emit func(arrow.RecordBatch) error) error {
		var base int64
		for src.Next() {
			rb, err := convertBatch(ctx, src.RecordBatch(), base)
			if err != nil {
				return err
			}
			base += src.RecordBatch().NumRows()
			if err := emit(rb); err != nil {
				return err
			}
		}
		if err := src.Err(); err != nil {
			return record.LineErr(base+1, "bad input: %v", err)
		}
		return nil
	}
}

// typedSource maps a staging column to the source column names that fill it.
func sourceName(stage string) string {
	switch stage {
	case "ts_us":
		return "ts"
	}
	return stage
}

func convertBatch(ctx context.Context, rb arrow.RecordBatch, base int64) (arrow.RecordBatch, error) {
	if err := checkSourceBatch(rb, base); err != nil {
		return nil, err
	}
	n := rb.NumRows()
	mem := memory.DefaultAllocator
	cols := make([]arrow.Array, record.NumCols)
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	known := map[string]bool{}
	for i, f := range record.Schema.Fields() {
		switch i {
		case record.ColLine, record.ColOrd:
			cols[i] = sequence(mem, n, base+map[bool]int64{true: 1, false: 0}[i == record.ColLine])
			continue
		case record.ColAttrs, record.ColReqText, record.ColGroup:
			continue
		}
		name := sourceName(f.Name)
		idx := rb.Schema().FieldIndices(name)
		if len(idx) == 0 {
			cols[i] = array.MakeArrayOfNull(mem, f.Type, int(n))
			continue
		}
		known[name] = true
		c, err := convertColumn(ctx, rb.Column(idx[0]), f, name, base)
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	cols[record.ColReqText] = array.MakeArrayOfNull(mem, arrow.BinaryTypes.String, int(n))
	cols[record.ColGroup] = array.MakeArrayOfNull(mem, arrow.BinaryTypes.String, int(n))
	attrs, err := attrsColumn(rb, known)
	if err != nil {
		return nil, err
	}
	cols[record.ColAttrs] = attrs
	return array.NewRecordBatch(record.Schema, cols, n), nil
}

func sequence(mem memory.Allocator, n, from int64) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.Reserve(int(n))
	for i := int64(0); i < n; i++ {
		b.UnsafeAppend(from + i)
	}
	return b.NewArray()
}

func convertColumn(ctx context.Context, src arrow.Array, f arrow.Field, name string, base int64) (arrow.Array, error) {
	if f.Name == "ts_us" {
		return tsColumn(src, name, base)
	}
	if f.Name == "outcome" && src.DataType().ID() == arrow.STRING {
		return lowerStrings(src), nil
	}
	if arrow.TypeEqual(src.DataType(), f.Type) {
		src.Retain()
		return src, nil
	}
	if f.Type.ID() == arrow.STRING && !isIntegerOrString(src.DataType()) {
		return nil, record.FieldErr(base+1, name, "want a string or integer column, got %s", src.DataType())
	}
	out, err := compute.CastArray(ctx, src, compute.SafeCastOptions(f.Type))
	if err != nil {
		return nil, castRowErr(src, f, name, base, err)
	}
	if f.Name == "outcome" {
		defer out.Release()
		return lowerStrings(out), nil
	}
	return out, nil
}

func isIntegerOrString(t arrow.DataType) bool {
	return arrow.IsInteger(t.ID()) || t.ID() == arrow.STRING || t.ID() == arrow.LARGE_STRING
}

// castRowErr finds the first row that does not convert, for the message.
func castRowErr(src arrow.Array, f arrow.Field, name string, base int64, err error) error {
	for i := 0; i < src.Len(); i++ {
		if src.IsNull(i) {
			continue
		}
		s := src.ValueStr(i)
		var bad bool
		switch f.Type.ID() {
		case arrow.FLOAT64:
			_, e := strconv.ParseFloat(s, 64)
			bad = e != nil
		case arrow.INT32:
			_, e := strconv.ParseInt(s, 10, 32)
			bad = e != nil
		case arrow.INT64:
			_, e := strconv.ParseInt(s, 10, 64)
			bad = e != nil
		case arrow.BOOL:
			bad = s != "true" && s != "false"
		}
		if bad {
			return record.FieldErr(base+int64(i)+1, name, "cannot convert %s value %q to %s", src.DataType(), s, f.Type)
		}
	}
	return record.FieldErr(base+1, name, "cannot convert %s column to %s: %v", src.DataType(), f.Type, err)
}

// lowerStrings returns a lower-cased copy; it releases nothing it was given.
func lowerStrings(a arrow.Array) arrow.Array {
	s := a.(*array.String)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for i := 0; i < s.Len(); i++ {
		if s.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(strings.ToLower(s.Value(i)))
		}
	}
	return b.NewArray()
}

// tsColumn converts an Arrow timestamp (or RFC 3339 strings) to microseconds.
func tsColumn(src arrow.Array, name string, base int64) (arrow.Array, error) {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	var r record.Row
	for i := 0; i < src.Len(); i++ {
		if src.IsNull(i) {
			b.AppendNull()
			continue
		}
		switch a := src.(type) {
		case *array.Timestamp:
			unit := a.DataType().(*arrow.TimestampType).Unit
			b.Append(a.Value(i).ToTime(unit).UnixMicro())
		default:
			r.Reset(base + int64(i) + 1)
			if err := record.SetTs(&r, record.Val{Kind: 't', Text: src.ValueStr(i)}); err != nil {
				return nil, record.FieldErr(r.Line, name, "%v", err)
			}
			b.Append(r.TsUs)
		}
	}
	return b.NewArray(), nil
}

// attrsColumn keeps the columns the schema does not name, as a JSON object per row.
func attrsColumn(rb arrow.RecordBatch, known map[string]bool) (arrow.Array, error) {
	var extra []int
	for i, f := range rb.Schema().Fields() {
		if !known[f.Name] && f.Name != "attrs" {
			extra = append(extra, i)
		}
	}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	attrsIdx := rb.Schema().FieldIndices("attrs")
	for r := 0; r < int(rb.NumRows()); r++ {
		m := map[string][]byte{}
		if len(attrsIdx) > 0 && !rb.Column(attrsIdx[0]).IsNull(r) {
			m["attrs"] = []byte(strconv.Quote(rb.Column(attrsIdx[0]).ValueStr(r)))
		}
		for _, i := range extra {
			col := rb.Column(i)
			if col.IsNull(r) {
				continue
			}
			v, err := jsonOf(col.GetOneForMarshal(r))
			if err != nil {
				return nil, err
			}
			m[rb.Schema().Field(i).Name] = v
		}
		if len(m) == 0 {
			b.AppendNull()
			continue
		}
		b.Append(compactRaw(m))
	}
	return b.NewArray(), nil
}

func jsonOf(v any) ([]byte, error) { return json.Marshal(v) }

func compactRaw(m map[string][]byte) string {
	obj := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		obj[k] = v
	}
	return record.CompactObject(obj)
}

// unpanicked runs open, an arrow-go reader's constructor, and makes a panic
// of it an error: a flatbuffer offset that checkArrowMetadata does not walk
// (a field's name past its buffer, FuzzArrowDecode's 83c043cb2a6b3ee9)
// indexes out of range inside arrow-go.
func unpanicked[T any](open func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed metadata")
		}
	}()
	return open()
}
