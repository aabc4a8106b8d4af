// Package locust reads Locust's *_stats_history.csv: per-second counts, each row standing for count requests.
package locust

import "github.com/rewind-dev/rewind/ingest/record"

// Format is the format as a record.Format.
type Format struct{}

func (Format) Name() string                         { return Name }
func (Format) About() string                        { return "Locust *_stats_history.csv (pre-binned per-second counts)" }
func (Format) Detect(name string, head []byte) bool { return detectLocust(name, head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeLocust(in, out)
}
