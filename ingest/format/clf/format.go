// Package clf reads text access logs, the family built on the NCSA Common
// Log Format: nginx, Apache, Traefik and the other servers whose format
// line package logformat translates (clf, by a recognised layout or one
// given with {log-format}), and the squid-format logs of Squid and Apache
// Traffic Server, which share its line reader.
package clf

import (
	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// CLF is the text access log as a record.Format: by one of the NCSA
// layouts recognised from the first line, or, made by WithLayout, by the
// server's own format line.
type CLF struct {
	lo *layout // the layout given with {log-format}; nil: recognised
}

func (CLF) Name() string { return Name }
func (CLF) About() string {
	return "text access logs: NCSA common, combined, vhost_combined (nginx, Apache, Traefik) with their timing fields, or any layout given with {log-format}"
}
func (CLF) Detect(name string, head []byte) bool { return detectCLF(name, head) }
func (f CLF) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decode(in, out, f.lo, f.lo != nil)
}

// InLineOrder and TimesFromTs: one row a line, its time from ts
// (record.Streamed).
func (CLF) InLineOrder() bool { return true }
func (CLF) TimesFromTs() bool { return true }

// WithLayout is the format that reads lines by the server's format line
// (record.Layouted): server names its language, "" for nginx or Apache,
// told by the line.
func (CLF) WithLayout(server, text string) (record.Format, error) {
	lo, err := parseServerLayout(server, text)
	if err != nil {
		return nil, err
	}
	return CLF{lo: lo}, nil
}

// Squid is Squid's native access log as a record.Format.
type Squid struct{}

func (Squid) Name() string                      { return SquidName }
func (Squid) About() string                     { return "Squid's native access log (logformat squid)" }
func (Squid) Detect(_ string, head []byte) bool { return detectSquid(SquidName, head) }
func (Squid) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decode(in, out, squidLayouts[SquidName], true)
}

// Refuses a line that fits both Squid's log and Traffic Server's, whose
// times do not mean the same (record.Refuser).
func (Squid) Refuses(head []byte) *param.Error {
	if !isAmbiguousSquid(head) {
		return nil
	}
	return param.Errorf("from", "this line fits both Squid's native access log, whose time is when a request ended, and Traffic Server's "+
		"squid format, whose time is when it arrived: name the server with {from} squid or {from} trafficserver")
}

// TrafficServer is Apache Traffic Server's squid-format access log as a
// record.Format.
type TrafficServer struct{}

func (TrafficServer) Name() string { return TrafficServerName }
func (TrafficServer) About() string {
	return "Apache Traffic Server's squid-format access log"
}
func (TrafficServer) Detect(_ string, head []byte) bool { return detectSquid(TrafficServerName, head) }
func (TrafficServer) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decode(in, out, squidLayouts[TrafficServerName], true)
}
