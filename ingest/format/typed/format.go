// Package typed reads the typed columnar formats, Apache Parquet and Arrow
// IPC: their columns of the canonical names are taken by type, a column of
// another type cast safely, and every other column kept in attrs.
package typed

import (
	"bytes"

	"github.com/rewind-dev/rewind/ingest/record"
)

// The formats' names ({from}).
const (
	ParquetName = "parquet"
	ArrowName   = "arrow"
)

// Parquet is an Apache Parquet file as a record.Format.
type Parquet struct{}

func (Parquet) Name() string                      { return ParquetName }
func (Parquet) About() string                     { return "Apache Parquet" }
func (Parquet) Detect(_ string, head []byte) bool { return bytes.HasPrefix(head, []byte("PAR1")) }
func (Parquet) Decode(in record.Input, _ record.Sink) (record.Produce, error) {
	return decode(in, ParquetName)
}

// Arrow is an Arrow IPC file or stream as a record.Format.
type Arrow struct{}

func (Arrow) Name() string  { return ArrowName }
func (Arrow) About() string { return "Arrow IPC file or stream (.arrow, .feather, .arrows)" }
func (Arrow) Detect(_ string, head []byte) bool {
	return bytes.HasPrefix(head, []byte("ARROW1")) || bytes.HasPrefix(head, []byte{0xff, 0xff, 0xff, 0xff})
}
func (Arrow) Decode(in record.Input, _ record.Sink) (record.Produce, error) {
	return decode(in, ArrowName)
}

// decode reads the file at random (a stream is spooled by the ingest).
func decode(in record.Input, format string) (record.Produce, error) {
	ra, size, err := in.ReaderAt()
	if err != nil {
		return nil, err
	}
	return decodeTypedSource(ra, size, format), nil
}
