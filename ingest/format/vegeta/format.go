// Package vegeta reads Vegeta's results (tsenart/vegeta): the binary
// encoding vegeta attack writes, and vegeta encode's JSON and CSV, each
// through Vegeta's own decoders; one canonical row per result.
package vegeta

import "github.com/rewind-dev/rewind/ingest/record"

// Format is Vegeta's results as a record.Format.
type Format struct{}

func (Format) Name() string { return Name }
func (Format) About() string {
	return "Vegeta results: binary (vegeta attack), vegeta encode --to json, or its 12-column CSV"
}
func (Format) Detect(name string, head []byte) bool { return detectVegeta(name, head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeVegeta(in, out)
}
