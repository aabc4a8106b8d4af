// Package chaostoolkit reads a Chaos Toolkit journal.json: its actions and
// probes become events, and the experiment's title, status and steady
// state its parameters. It gives no requests.
package chaostoolkit

import "github.com/rewind-dev/rewind/ingest/record"

// Format is the Chaos Toolkit journal as a record.Format.
type Format struct{}

func (Format) Name() string { return Name }
func (Format) About() string {
	return "Chaos Toolkit journal.json (actions and probes become events)"
}
func (Format) Detect(name string, head []byte) bool { return detectChaostoolkit(name, head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeChaostoolkit(in, out)
}
