package ingest

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rewind-dev/rewind/ingest/record"
)

// A canonical file gives a few of the stage's 23 columns; the others are
// null on every row. DuckDB's Arrow scan was handed all of them, and
// converted, projected and stored each column of each batch. The insert
// is handed only the columns the file has given so far (colSet) and
// reads the others as typed NULLs; a batch that gives a column outside
// the set ends that INSERT, and the next one, with the set widened, goes
// on from that batch (narrowed). A file whose columns do not change is one
// INSERT, as before; at most one more per column a later batch gives.

// colSet is a set of posSchema's columns, bit i for column i.
type colSet uint32

// alwaysGiven are the columns every batch has: the line, the order and
// the run position.
const alwaysGiven = colSet(1<<record.ColLine | 1<<record.ColOrd | 1<<record.NumCols)

// givenCols are the columns of rb that hold a value on some row.
func givenCols(rb arrow.RecordBatch) colSet {
	s := alwaysGiven
	for c := 0; c < int(rb.NumCols()); c++ {
		if a := rb.Column(c); a.NullN() < a.Len() {
			s |= 1 << c
		}
	}
	return s
}

func (s colSet) has(c int) bool { return s&(1<<c) != 0 }

// schema is posSchema's fields of the set, in order.
func (s colSet) schema() *arrow.Schema {
	var fs []arrow.Field
	for c, f := range posSchema.Fields() {
		if s.has(c) {
			fs = append(fs, f)
		}
	}
	return arrow.NewSchema(fs, nil)
}

// selectList reads view as posSchema's columns: those of the set by name
// (every column of the view is referenced: see insertRequests), the
// others as NULLs of their type.
func (s colSet) selectList() string {
	var b strings.Builder
	for c, f := range posSchema.Fields() {
		if c > 0 {
			b.WriteString(", ")
		}
		if s.has(c) {
			b.WriteString(f.Name)
		} else {
			fmt.Fprintf(&b, "NULL::%s AS %s", sqlType(f.Type), f.Name)
		}
	}
	return b.String()
}

// sqlType is DuckDB's name of a stage column's Arrow type.
func sqlType(t arrow.DataType) string {
	switch t.ID() {
	case arrow.STRING:
		return "VARCHAR"
	case arrow.INT32:
		return "INTEGER"
	case arrow.INT64:
		return "BIGINT"
	case arrow.FLOAT64:
		return "DOUBLE"
	case arrow.BOOL:
		return "BOOLEAN"
	}
	panic("ingest: no SQL type for stage column type " + t.String())
}

// narrowed is the stream's batches cut to the columns of cols, for one
// INSERT: it ends at the stream's end or before the first batch that
// gives a column outside cols (wider then says which; the stream
// returns that batch first to the next reader).
type narrowed struct {
	s      *stream
	cols   colSet
	schema *arrow.Schema
	cur    arrow.RecordBatch
	wider  colSet // the columns of the batch that ended this reader, or 0
}

func newNarrowed(s *stream, cols colSet) *narrowed {
	return &narrowed{s: s, cols: cols, schema: cols.schema()}
}

func (n *narrowed) Retain()                        {}
func (n *narrowed) Schema() *arrow.Schema          { return n.schema }
func (n *narrowed) RecordBatch() arrow.RecordBatch { return n.cur }
func (n *narrowed) Record() arrow.RecordBatch      { return n.cur }
func (n *narrowed) Err() error                     { return n.s.Err() }

func (n *narrowed) Next() bool {
	n.releaseCur()
	if n.wider != 0 || !n.s.Next() {
		return false
	}
	rb := n.s.RecordBatch()
	if g := givenCols(rb); g&^n.cols != 0 {
		n.wider = g
		n.s.unread()
		return false
	}
	cols := make([]arrow.Array, 0, n.schema.NumFields())
	for c := 0; c < int(rb.NumCols()); c++ {
		if n.cols.has(c) {
			cols = append(cols, rb.Column(c))
		}
	}
	n.cur = array.NewRecordBatch(n.schema, cols, rb.NumRows())
	return true
}

// Release drops the current batch only: the stream goes on to the next
// reader, and insertRequests releases it.
func (n *narrowed) Release() { n.releaseCur() }

func (n *narrowed) releaseCur() {
	if n.cur != nil {
		n.cur.Release()
		n.cur = nil
	}
}
