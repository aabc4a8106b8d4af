// Package haproxy reads HAProxy's option httplog lines, raw or behind an
// RFC 3164 or RFC 5424 syslog prefix: one canonical row per request line,
// an event per other message.
package haproxy

import "github.com/rewind-dev/rewind/ingest/record"

// Format is HAProxy's httplog as a record.Format.
type Format struct{}

func (Format) Name() string { return Name }
func (Format) About() string {
	return "HAProxy option httplog lines, raw or behind an RFC 3164/5424 syslog prefix"
}
func (Format) Detect(name string, head []byte) bool { return detectHaproxy(name, head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeHaproxy(in, out)
}
