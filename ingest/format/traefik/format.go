// Package traefik reads Traefik's JSON access log.
package traefik

import "github.com/rewind-dev/rewind/ingest/record"

// Format is the format as a record.Format.
type Format struct{}

func (Format) Name() string                         { return Name }
func (Format) About() string                        { return "Traefik's JSON access log" }
func (Format) Detect(name string, head []byte) bool { return detectTraefik(name, head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeTraefik(in, out)
}
