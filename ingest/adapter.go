package ingest

import (
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// This file holds the formats not yet moved to a package of their own
// under ingest/format: the contract is record.Format (ingest/record), the
// registry is registry.go, and a new format is written as CONTRIBUTING.md's
// "Adding a format" says, not here.

// A format of this package: how to recognise it from its first bytes (and
// name), and how to decode it into canonical staging batches.
type format struct {
	name  string // the {from} value
	about string // what files it reads, for the help and the README: a param format ({log-format})
	// detect tells from the first bytes of the decompressed content (up to
	// 64 KiB) and the file's name (without a compression extension).
	detect func(name string, head []byte) bool
	// decode returns the producer of the input's staging batches; events
	// and experiment or run parameters go to c.
	decode func(in *input, c *collector) (record.Produce, error)
	// lineOrder and tsOnly are its record.Streamed answers
	lineOrder, tsOnly bool
}

// Name, About, Detect and Decode make a format of this package a
// record.Format, until it moves to a package of its own.
func (f format) Name() string                         { return f.name }
func (f format) About() string                        { return f.about }
func (f format) Detect(name string, head []byte) bool { return f.detect(name, head) }
func (f format) InLineOrder() bool                    { return f.lineOrder }
func (f format) TimesFromTs() bool                    { return f.tsOnly }
func (f format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return f.decode(in.(*input), out.(*collector))
}

// What a format of this package uses beyond record: in.head (the first
// bytes as detect saw them), in.guard.max (the record cap) and in.mapRaw
// (the fields a {map} keeps raw) of its *input; c.Event, c.Warn and the
// experiments and runs of the *collector; record.SetField and record.SetTs to set a
// canonical column from a record.Val (values.go); and wholeDoc below.

// Formats lists the accepted --from values, in detection order.
var Formats = func() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.Name()
	}
	return out
}()

// FormatTable lists each format with what it reads, in detection order,
// a parameter it names written as name says.
func FormatTable(name func(param string) string) [][2]string {
	out := make([][2]string, len(formats))
	for i, f := range formats {
		out[i] = [2]string{f.Name(), param.Textf(f.About()).Say(name)}
	}
	return out
}

func formatNamed(name string) (record.Format, bool) {
	for _, f := range formats {
		if f.Name() == name {
			return f, true
		}
	}
	return nil, false
}

// Detect names the format of a file from its first bytes and its name.
func Detect(path string, head []byte) (string, error) {
	f, err := detectFormat(path, head)
	if err != nil {
		return "", err
	}
	return f.Name(), nil
}

func detectFormat(path string, head []byte) (record.Format, error) {
	if err := refused(head); err != nil {
		return nil, err
	}
	for _, f := range formats {
		if r, ok := f.(record.Refuser); ok {
			if err := r.Refuses(head); err != nil {
				return nil, err
			}
		}
	}
	if err := serviceLogRefusal(path, head); err != nil {
		return nil, err
	}
	for _, f := range formats {
		if f.Detect(path, head) {
			return f, nil
		}
	}
	return nil, param.Errorf("from", "unknown format (want one of %s; name it with {from})", strings.Join(Formats, ", "))
}

// layouted is the first format of the registry that reads lines by a
// layout the user gives ({log-format}).
func layouted() (record.Format, record.Layouted) {
	for _, f := range formats {
		if l, ok := f.(record.Layouted); ok {
			return f, l
		}
	}
	panic("ingest: no format of the registry reads a {log-format}")
}

// checkLogFormat refuses a format line that does not read, and a server
// or a format given with a format that is not a text access log.
func checkLogFormat(opts Options) error {
	if opts.Server != "" && opts.LogFormat == "" {
		return param.Errorf("server", "{server} names the language of {log-format}: give the server's format line with it")
	}
	if opts.LogFormat == "" {
		return nil
	}
	f, l := layouted()
	if opts.From != "" && opts.From != f.Name() {
		return param.Errorf("log-format", "{log-format} reads text access logs ({from} %s), not {from} %s", f.Name(), opts.From)
	}
	_, err := l.WithLayout(opts.Server, opts.LogFormat)
	return err
}

// wholeDoc adapts a decoder of a whole in-memory document.
func wholeDoc(dec func(data []byte, c *collector) record.Produce) func(*input, *collector) (record.Produce, error) {
	return func(in *input, c *collector) (record.Produce, error) {
		data, err := in.All()
		if err != nil {
			return nil, err
		}
		return dec(data, c), nil
	}
}
