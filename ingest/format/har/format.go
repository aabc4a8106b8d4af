// Package har reads the HTTP Archive 1.2 (a browser's network export): one
// canonical row per entry, a har.page event per page, the creator and
// browser as the experiment's parameters.
package har

import "github.com/rewind-dev/rewind/ingest/record"

// Format is HAR as a record.Format.
type Format struct{}

func (Format) Name() string                         { return Name }
func (Format) About() string                        { return "HAR 1.2 (browser network export)" }
func (Format) Detect(name string, head []byte) bool { return detectHar(name, head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeHar(in, out)
}
