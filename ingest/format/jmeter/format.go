// Package jmeter reads JMeter's .jtl results, CSV (with a header, or the
// default columns without one) or XML: one canonical row per sample.
package jmeter

import "github.com/rewind-dev/rewind/ingest/record"

// Format is JMeter's .jtl as a record.Format.
type Format struct{}

func (Format) Name() string                         { return Name }
func (Format) About() string                        { return "JMeter .jtl results, CSV with a header or XML" }
func (Format) Detect(name string, head []byte) bool { return detectJmeter(name, head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeJmeter(in, out)
}
