// Package envoytext reads Envoy's text access log in its default format
// string, and Istio's text defaults: one canonical row per request line, an
// envoy.connection event per TCP proxy line.
package envoytext

import "github.com/rewind-dev/rewind/ingest/record"

// Format is Envoy's text access log as a record.Format.
type Format struct{}

func (Format) Name() string                         { return Name }
func (Format) About() string                        { return "Envoy's default text access log, and Istio's text defaults" }
func (Format) Detect(name string, head []byte) bool { return detectEnvoyText(name, head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeEnvoyText(in, out)
}
