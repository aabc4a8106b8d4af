// Package gcplb reads Google Cloud HTTP(S) Load Balancer request logs: LogEntry NDJSON, or the JSON array gcloud logging read writes.
package gcplb

import "github.com/rewind-dev/rewind/ingest/record"

// Format is the format as a record.Format.
type Format struct{}

func (Format) Name() string { return Name }
func (Format) About() string {
	return "Google Cloud HTTP(S) Load Balancer request logs (LogEntry NDJSON or a gcloud JSON array)"
}
func (Format) Detect(name string, head []byte) bool { return detectGCPLB(name, head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeGCPLB(in, out)
}
