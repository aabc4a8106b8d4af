// Package ab reads Apache Bench's per-request file (ab -g FILE): one row per completed request, its start in whole seconds.
package ab

import "github.com/rewind-dev/rewind/ingest/record"

// Format is the format as a record.Format.
type Format struct{}

func (Format) Name() string                         { return Name }
func (Format) About() string                        { return "Apache Bench ab -g FILE (per-request TSV)" }
func (Format) Detect(name string, head []byte) bool { return detectAB(name, head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeAB(in, out)
}

// Header is the first line of every ab -g file.
const Header = abHeader
