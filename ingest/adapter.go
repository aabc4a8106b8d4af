package ingest

import (
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// The pipeline's side of the registry (registry.go): the formats' names
// and table, detection, and the optional interfaces a format may implement
// (record.Layouted, record.Refuser, record.LineDecoder), each reached by
// looking the registry up.

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
