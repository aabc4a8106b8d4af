package typed

import (
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rewind-dev/rewind/ingest/record"
)

// checkSourceBatch validates a batch read from a Parquet or Arrow file
// before any of its buffers is used: a column of the staging type is handed
// to DuckDB's Arrow scan as it is, which reads its buffers in C, where a
// malformed length crashes the process instead of failing. Columns named
// twice are refused too (the second would be dropped unseen).
func checkSourceBatch(rb arrow.RecordBatch, base int64) error {
	seen := map[string]bool{}
	for i, f := range rb.Schema().Fields() {
		if seen[f.Name] {
			return record.FieldErr(0, f.Name, "column given twice")
		}
		seen[f.Name] = true
		col := rb.Column(i)
		if int64(col.Len()) != rb.NumRows() {
			return record.FieldErr(base+1, f.Name, "malformed input: column has %d rows, the batch %d", col.Len(), rb.NumRows())
		}
		if err := validateArray(col); err != nil {
			return record.FieldErr(base+1, f.Name, "malformed input: %v", err)
		}
	}
	return nil
}

// validateArray checks that an array's buffers hold what its length and
// offset promise, fully for variable-width types.
func validateArray(a arrow.Array) error {
	d := a.Data()
	n := d.Offset() + d.Len()
	bufs := d.Buffers()
	if len(bufs) > 0 && bufs[0] != nil && bufs[0].Len()*8 < n {
		return fmt.Errorf("validity bitmap too short")
	}
	if fw, ok := a.DataType().(arrow.FixedWidthDataType); ok && a.DataType().ID() != arrow.BOOL {
		if len(bufs) < 2 || bufs[1] == nil || bufs[1].Len() < n*fw.BitWidth()/8 {
			return fmt.Errorf("data buffer too short for %d %s values", n, a.DataType())
		}
		return nil
	}
	if a.DataType().ID() == arrow.BOOL && (len(bufs) < 2 || bufs[1] == nil || bufs[1].Len()*8 < n) {
		return fmt.Errorf("data buffer too short for %d booleans", n)
	}
	switch x := a.(type) {
	case *array.String:
		// Offsets are checked here, not with ValidateFull, which would
		// also refuse bad UTF-8 without naming the row (validateBatch does).
		if err := x.Validate(); err != nil {
			return err
		}
		return monotonic(x.ValueOffsets(), len(x.ValueBytes()))
	case *array.Binary:
		if err := x.Validate(); err != nil {
			return err
		}
		return monotonic(x.ValueOffsets(), len(x.ValueBytes()))
	case *array.Struct:
		for i := 0; i < x.NumField(); i++ {
			if err := validateArray(x.Field(i)); err != nil {
				return err
			}
		}
	case *array.Dictionary:
		return validateArray(x.Indices())
	default:
		type fullValidator interface{ ValidateFull() error }
		if v, ok := a.(fullValidator); ok {
			return v.ValidateFull()
		}
	}
	return nil
}

func monotonic(offsets []int32, dataLen int) error {
	for i := 1; i < len(offsets); i++ {
		if offsets[i] < offsets[i-1] || int(offsets[i]) > dataLen {
			return fmt.Errorf("value offsets out of order or past the data")
		}
	}
	return nil
}

// boundedAllocator caps what a reader of one file may allocate at once by
// the file's size, so a corrupted length field fails the ingest (a panic
// the decoder's recover turns into an error) instead of exhausting memory.
type boundedAllocator struct {
	inner memory.Allocator
	limit int64
	live  atomic.Int64
}

func newBoundedAllocator(fileSize int64) *boundedAllocator {
	// Decompressed and decoded data outgrow the file; 64 MiB covers small
	// files, 32x covers heavily compressed Parquet.
	return &boundedAllocator{inner: memory.DefaultAllocator, limit: max(64<<20, 32*fileSize)}
}

func (b *boundedAllocator) reserve(n int) {
	if b.live.Add(int64(n)) > b.limit {
		b.live.Add(-int64(n))
		panic(fmt.Sprintf("malformed input: it asks for more memory (%d bytes) than a file of its size can hold", n))
	}
}

func (b *boundedAllocator) Allocate(size int) []byte {
	b.reserve(size)
	return b.inner.Allocate(size)
}

func (b *boundedAllocator) Reallocate(size int, buf []byte) []byte {
	b.reserve(size - len(buf))
	return b.inner.Reallocate(size, buf)
}

func (b *boundedAllocator) Free(buf []byte) {
	b.live.Add(-int64(len(buf)))
	b.inner.Free(buf)
}
