// Package access reads JSON access logs, one object per line: Envoy's
// default JSON and nginx's log_format escape=json, under the field names
// those servers and their common configurations use.
package access

import "github.com/rewind-dev/rewind/ingest/record"

// Format is the JSON access log as a record.Format.
type Format struct{}

func (Format) Name() string { return Name }
func (Format) About() string {
	return "JSON access logs (Envoy default JSON, nginx log_format escape=json)"
}
func (Format) Detect(name string, head []byte) bool { return detectAccess(name, head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeAccess(in, out)
}
