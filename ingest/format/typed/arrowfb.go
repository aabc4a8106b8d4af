package typed

import (
	"encoding/binary"
	"fmt"
	"io"

	flatbuffers "github.com/google/flatbuffers/go"
)

// checkArrowMetadata walks the flatbuffer metadata of an Arrow IPC file or
// stream before arrow-go reads it. arrow-go sizes slices from vector
// lengths in that metadata (fields, children, custom metadata, buffers):
// a corrupted length makes it allocate tens of gigabytes, a fatal error no
// recover can catch. Every vector length reachable from the schema and the
// batch headers must fit in the bytes of its flatbuffer. Slot numbers are
// the field order of Arrow's Schema.fbs, Message.fbs and File.fbs.
func checkArrowMetadata(ra io.ReaderAt, size int64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bad Arrow IPC file: malformed metadata")
		}
	}()
	magic := make([]byte, 6)
	if _, err := ra.ReadAt(magic, 0); err == nil && string(magic) == "ARROW1" && size >= 18 {
		return checkArrowFile(ra, size)
	}
	return checkArrowMessages(ra, 0, size, -1)
}

func checkArrowFile(ra io.ReaderAt, size int64) error {
	tail := make([]byte, 10)
	if _, err := ra.ReadAt(tail, size-10); err != nil {
		return err
	}
	n := int64(int32(binary.LittleEndian.Uint32(tail)))
	if n <= 0 || n > size-18 {
		return fmt.Errorf("bad Arrow IPC file: footer length %d", n)
	}
	buf := make([]byte, n)
	if _, err := ra.ReadAt(buf, size-10-n); err != nil {
		return err
	}
	footer := root(buf)
	if err := fbTable(footer, 1, checkSchema); err != nil { // Footer.schema
		return err
	}
	for _, slot := range []flatbuffers.VOffsetT{2, 3} { // dictionaries, recordBatches: Block structs of 24 bytes
		blocks, n, err := fbVector(footer, slot, 24)
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			off := int64(footer.GetInt64(blocks + flatbuffers.UOffsetT(i*24)))
			if off < 0 || off >= size {
				return fmt.Errorf("bad Arrow IPC file: block offset %d", off)
			}
			if err := checkArrowMessages(ra, off, size, 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkArrowMessages checks up to limit encapsulated messages from off
// (all of them when limit < 0).
func checkArrowMessages(ra io.ReaderAt, off, size int64, limit int) error {
	hdr := make([]byte, 8)
	for i := 0; limit < 0 || i < limit; i++ {
		if off+8 > size {
			return nil
		}
		if _, err := ra.ReadAt(hdr, off); err != nil {
			return nil
		}
		skip := int64(8)
		n := int64(int32(binary.LittleEndian.Uint32(hdr[4:])))
		if binary.LittleEndian.Uint32(hdr) != 0xFFFFFFFF { // the format before 0.15: no continuation marker
			n, skip = int64(int32(binary.LittleEndian.Uint32(hdr))), 4
		}
		if n == 0 {
			return nil // end of stream
		}
		if n < 0 || off+skip+n > size {
			return fmt.Errorf("bad Arrow IPC file: message length %d", n)
		}
		buf := make([]byte, n)
		if _, err := ra.ReadAt(buf, off+skip); err != nil {
			return err
		}
		msg := root(buf)
		body := msg.GetInt64Slot(10, 0) // Message.bodyLength
		if body < 0 || off+skip+n+body > size {
			return fmt.Errorf("bad Arrow IPC file: message body length %d", body)
		}
		if err := checkMessage(msg); err != nil {
			return err
		}
		off += skip + n + body
	}
	return nil
}

func checkMessage(msg *flatbuffers.Table) error {
	if err := fbKeyValues(msg, 4); err != nil { // Message.custom_metadata
		return err
	}
	switch msg.GetByteSlot(6, 0) { // Message.header_type
	case 1: // Schema
		return fbTable(msg, 2, checkSchema)
	case 2: // DictionaryBatch: its data (slot 1) is a RecordBatch
		return fbTable(msg, 2, func(d *flatbuffers.Table) error { return fbTable(d, 1, checkRecordBatch) })
	case 3:
		return fbTable(msg, 2, checkRecordBatch)
	}
	return nil
}

func checkRecordBatch(rb *flatbuffers.Table) error {
	for slot, width := range map[flatbuffers.VOffsetT]int{1: 16, 2: 16, 4: 8} { // nodes, buffers, variadicBufferCounts
		if _, _, err := fbVector(rb, slot, width); err != nil {
			return err
		}
	}
	return nil
}

func checkSchema(s *flatbuffers.Table) error {
	if err := fbKeyValues(s, 2); err != nil {
		return err
	}
	return fbTables(s, 1, checkField, 0) // Schema.fields
}

func checkField(f *flatbuffers.Table, depth int) error {
	if depth > 64 {
		return fmt.Errorf("bad Arrow IPC file: fields nested deeper than 64")
	}
	if err := fbKeyValues(f, 6); err != nil { // Field.custom_metadata
		return err
	}
	return fbTables(f, 5, checkField, depth+1) // Field.children
}

func fbKeyValues(t *flatbuffers.Table, slot flatbuffers.VOffsetT) error {
	_, _, err := fbVector(t, slot, 4)
	return err
}

func root(buf []byte) *flatbuffers.Table {
	return &flatbuffers.Table{Bytes: buf, Pos: flatbuffers.GetUOffsetT(buf)}
}

// fbVector returns the start and length of the vector in slot, checking
// that its elements (width bytes each) fit in the buffer.
func fbVector(t *flatbuffers.Table, slot flatbuffers.VOffsetT, width int) (flatbuffers.UOffsetT, int, error) {
	o := flatbuffers.UOffsetT(t.Offset(4 + 2*slot))
	if o == 0 {
		return 0, 0, nil
	}
	start := t.Vector(o)
	n := t.VectorLen(o)
	if n < 0 || int64(start)+int64(n)*int64(width) > int64(len(t.Bytes)) {
		return 0, 0, fmt.Errorf("bad Arrow IPC file: a metadata vector of %d elements in %d bytes", n, len(t.Bytes))
	}
	return start, n, nil
}

func fbTable(t *flatbuffers.Table, slot flatbuffers.VOffsetT, check func(*flatbuffers.Table) error) error {
	o := flatbuffers.UOffsetT(t.Offset(4 + 2*slot))
	if o == 0 {
		return nil
	}
	sub := &flatbuffers.Table{Bytes: t.Bytes, Pos: t.Indirect(o + t.Pos)}
	return check(sub)
}

func fbTables(t *flatbuffers.Table, slot flatbuffers.VOffsetT, check func(*flatbuffers.Table, int) error, depth int) error {
	start, n, err := fbVector(t, slot, 4)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		at := start + flatbuffers.UOffsetT(i*4)
		sub := &flatbuffers.Table{Bytes: t.Bytes, Pos: t.Indirect(at)}
		if err := check(sub, depth); err != nil {
			return err
		}
	}
	return nil
}
