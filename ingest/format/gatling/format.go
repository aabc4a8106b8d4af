// Package gatling reads Gatling's text simulation.log (Gatling 2.2 to
// 3.12): REQUEST records become canonical rows, USER, GROUP, ERROR and RUN
// records events, RUN and ASSERTION records the experiment's parameters.
package gatling

import "github.com/rewind-dev/rewind/ingest/record"

// Format is Gatling's simulation.log as a record.Format.
type Format struct{}

func (Format) Name() string                         { return Name }
func (Format) About() string                        { return "Gatling 3.x text simulation.log" }
func (Format) Detect(name string, head []byte) bool { return detectGatling(name, head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeGatling(in, out)
}
