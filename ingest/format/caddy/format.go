// Package caddy reads Caddy 2's JSON access log (log { format json }): one
// canonical row per access entry, a caddy.log event per entry of another
// logger.
package caddy

import "github.com/rewind-dev/rewind/ingest/record"

// Format is Caddy's JSON access log as a record.Format.
type Format struct{}

func (Format) Name() string { return Name }
func (Format) About() string {
	return "Caddy 2 JSON access log (format json: ts and duration in seconds, request{})"
}
func (Format) Detect(name string, head []byte) bool { return detectCaddy(name, head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeCaddy(in, out)
}
