package clf

import (
	"errors"

	"github.com/rewind-dev/rewind/ingest/format/clf/logformat"
	"github.com/rewind-dev/rewind/internal/param"
)

// A layout is the shape of one text access-log line: literal text between
// fields, read from the server's own format line (package logformat
// translates each server's language) or one of the NCSA layouts ingest
// recognises by itself.
type layout struct {
	items  []layoutItem
	server string // the logformat server whose language the layout is in ("" for a recognised NCSA layout)
	open   bool   // more fields may follow the last one, after a space (the NCSA layouts ingest recognises)
	text   string // as given, for messages
	// guessed: read as Apache's by the line alone, with a time (see
	// logformat.Layout.Guessed)
	guessed bool
}

// A layoutItem is literal text (f nil) or a field.
type layoutItem struct {
	lit string
	f   *logField
}

// clfTime is nginx's $time_local and Apache's %t: whole seconds with the
// zone.
const clfTime = "02/Jan/2006:15:04:05 -0700"

type fieldRole int

// The roles are logformat's, in its order.
const (
	roleAttr    = fieldRole(logformat.Attr)    // kept in attrs under its name
	roleStatus  = fieldRole(logformat.Status)  // the HTTP status
	roleRequest = fieldRole(logformat.Request) // the request line: method, path and protocol
	roleTime    = fieldRole(logformat.Time)    // a time of the request (start or end)
	roleLatency = fieldRole(logformat.Latency) // the request's duration
	roleReqID   = fieldRole(logformat.ReqID)   // a request id: req_text
	roleList    = fieldRole(logformat.List)    // nginx's upstream times: "0.001, 0.003 : 0.002", kept as text
)

// A logField is one field of a layout and what it means (logformat.Field).
type logField struct {
	name        string
	role        fieldRole
	goLayout    string
	epochUnitUs int64
	wholeEpoch  bool
	frac        bool
	end         bool
	stepMs      float64
	shift       int
	whole       bool
	pad         bool
}

// parseLayout reads an nginx log_format or an Apache LogFormat line,
// telling which by the line.
func parseLayout(s string) (*layout, error) { return parseServerLayout("", s) }

// parseServerLayout reads a format line in server's language ("" for
// nginx or Apache, told by the line).
func parseServerLayout(server, s string) (*layout, error) {
	src, err := logformat.Parse(server, s)
	if err != nil {
		var e *logformat.Error
		if errors.As(err, &e) {
			return nil, param.Errorf("log-format", e.Format, e.Args...)
		}
		return nil, err
	}
	lo := &layout{server: src.Server, text: src.Text, guessed: src.Guessed}
	for _, it := range src.Items {
		if it.F == nil {
			lo.items = append(lo.items, layoutItem{lit: it.Lit})
			continue
		}
		f := it.F
		lo.items = append(lo.items, layoutItem{f: &logField{name: f.Name, role: fieldRole(f.Role), goLayout: f.GoLayout,
			epochUnitUs: f.EpochUnitUs, wholeEpoch: f.WholeEpoch, frac: f.Frac, end: f.End, stepMs: f.StepMs,
			shift: f.Shift, whole: f.Whole, pad: f.Pad}})
	}
	return lo, nil
}

// serverName is the server whose log this is, for a message.
func (lo *layout) serverName() string {
	if name, ok := logformat.Servers[lo.server]; ok {
		return name
	}
	return "nginx"
}

// timeEnd tells whether the layout's time is when the request ended.
func (lo *layout) timeEnd() bool {
	for _, it := range lo.items {
		if it.f != nil && it.f.role == roleTime {
			return it.f.end
		}
	}
	return false
}

// timeStep is the resolution of the layout's time, 0 without one.
func (lo *layout) timeStep() float64 {
	for _, it := range lo.items {
		if it.f != nil && it.f.role == roleTime {
			return it.f.stepMs
		}
	}
	return 0
}

// endNoLatencyWarning says, once per file, that the log's times are the
// requests' ends with nothing to take them back by, naming the server the
// log is from (a recognised layout's end time is nginx's).
func endNoLatencyWarning(lo *layout, given bool) *param.Error {
	if !given || lo.server == "nginx" {
		return param.Textf("nginx writes its times when a request ends and this log has no $request_time: " +
			"ts is each request's end, not its start (add $request_time to the log_format to tell them apart)")
	}
	return param.Textf("%s writes this log's time when a request ends and the log has no duration: "+
		"ts is each request's end, not its start (add the duration to the server's format to tell them apart)", lo.serverName())
}

// guessedWarning says, once per file, that a bare %-format line was read
// as Apache's, whose %t is the start, while other servers write the same
// directives with the end.
func guessedWarning() *param.Error {
	return param.Textf("the format line was read as Apache's LogFormat, whose %%t is when a request arrived; " +
		"lighttpd and Tomcat write the same directives with %%t when it ended: if the log is theirs, name the server with {server}")
}

// startOrEndWarning says, once per file, that a recognised NCSA line
// without a duration does not tell whether its time is the start or the
// end: servers write the same line either way.
func startOrEndWarning() *param.Error {
	return param.Textf("this log's lines do not tell whether their time is a request's start (Apache, varnishncsa, h2o, " +
		"Traefik) or its end (nginx, lighttpd, Tomcat), and carry no duration: ts is read as the start; if the log is " +
		"nginx's, lighttpd's or Tomcat's, give its format line with {log-format} (and {server})")
}
