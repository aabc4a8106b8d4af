// Package k6 reads k6's per-sample outputs: its JSON (k6 run --out json)
// and its CSV (k6 run --out csv). The points of one HTTP request become one
// canonical row; every other point, and each metric's definition, an event.
package k6

import "github.com/rewind-dev/rewind/ingest/record"

// Format is k6's JSON output as a record.Format.
type Format struct{}

func (Format) Name() string                         { return Name }
func (Format) About() string                        { return "k6 run --out json (NDJSON of Metric/Point records)" }
func (Format) Detect(name string, head []byte) bool { return detectK6(name, head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeK6(in, out)
}

// CSV is k6's CSV output as a record.Format.
type CSV struct{}

func (CSV) Name() string                         { return CSVName }
func (CSV) About() string                        { return "k6 run --out csv" }
func (CSV) Detect(name string, head []byte) bool { return detectK6csv(name, head) }
func (CSV) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeK6csv(in, out)
}
