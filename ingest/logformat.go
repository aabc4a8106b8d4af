package ingest

import (
	"fmt"
	"regexp"
	"strings"
)

// A layout is the shape of one text access-log line: literal text between
// fields, read from an nginx log_format or an Apache LogFormat line (what
// the server's own configuration says it writes), or one of the NCSA
// layouts ingest recognises by itself.
type layout struct {
	items  []layoutItem
	server string // "nginx" or "apache": whose variable names the layout uses
	open   bool   // more fields may follow the last one, after a space (the NCSA layouts ingest recognises)
	text   string // as given, for messages
}

// A layoutItem is literal text (f nil) or a field.
type layoutItem struct {
	lit string
	f   *logField
}

type fieldRole int

const (
	roleAttr    fieldRole = iota // kept in attrs under its name
	roleStatus                   // the HTTP status
	roleRequest                  // the request line: method, path and protocol
	roleTime                     // a time of the request (start or end)
	roleLatency                  // the request's duration
	roleReqID                    // a request id: req_text
	roleList                     // nginx's upstream times: "0.001, 0.003 : 0.002", kept as text
)

// A logField is one field of a layout and what it means.
type logField struct {
	name string // the attrs key: nginx's variable name, Apache's directive named alike
	role fieldRole
	// roleTime: the time as a Go layout, or epochDigits > 0 for a number of
	// seconds since the epoch with that many fraction digits at most
	// (nginx $msec: 3), or epochUnitUs for Apache's %{sec|msec|usec}t.
	goLayout    string
	epochUnitUs int64   // > 0: a number of this many µs since the epoch
	wholeEpoch  bool    // the epoch number is whole (Apache); else it may have a fraction (nginx $msec)
	frac        bool    // a fraction of a second alone (%{msec_frac}t), merged into the time before it
	end         bool    // the server writes the time when the request ended
	stepMs      float64 // the time's resolution in ms
	// roleLatency: the value's decimal exponent to milliseconds (seconds 3,
	// µs -3) and whether the server writes it as a whole number.
	shift int
	whole bool
}

// clfTime is $time_local and Apache's %t: whole seconds with the zone.
const clfTime = "02/Jan/2006:15:04:05 -0700"

// nginxVars are the nginx variables with a meaning beyond "keep it in
// attrs". nginx stamps every time variable when it writes the line, at the
// end of the request.
var nginxVars = map[string]logField{
	"time_local":             {role: roleTime, goLayout: clfTime, end: true, stepMs: 1000},
	"time_iso8601":           {role: roleTime, goLayout: "2006-01-02T15:04:05-07:00", end: true, stepMs: 1000},
	"msec":                   {role: roleTime, epochUnitUs: 1e6, end: true, stepMs: 1},
	"status":                 {role: roleStatus},
	"request":                {role: roleRequest},
	"request_time":           {role: roleLatency, shift: 3},
	"request_id":             {role: roleReqID},
	"http_x_request_id":      {role: roleReqID},
	"upstream_response_time": {role: roleList},
	"upstream_connect_time":  {role: roleList},
	"upstream_header_time":   {role: roleList},
	"upstream_addr":          {role: roleList},
	"upstream_status":        {role: roleList},
}

// apacheNames names Apache's directives in attrs as nginx names the same
// thing, so one query reads both servers' logs.
var apacheNames = map[string]string{
	"h": "remote_host", "a": "remote_addr", "A": "server_addr", "l": "remote_logname", "u": "remote_user",
	"b": "body_bytes_sent", "B": "body_bytes_sent", "O": "bytes_sent", "I": "bytes_received", "S": "bytes_transferred",
	"v": "server_name", "V": "host", "p": "server_port", "P": "pid", "k": "keepalive_requests",
	"X": "connection_status", "R": "handler", "f": "request_filename", "q": "query_string", "U": "uri",
	"m": "request_method", "H": "server_protocol", "<s": "original_status", "L": "request_log_id",
}

// parseLayout reads an nginx log_format or an Apache LogFormat line: the
// directive as it stands in the server's configuration, or only its format
// string. Variables ($name) make it nginx's, directives (%h) Apache's.
func parseLayout(s string) (*layout, error) {
	text, server, err := layoutText(s)
	if err != nil {
		return nil, err
	}
	var lo *layout
	if server == "nginx" {
		lo, err = parseNginx(text)
	} else {
		lo, err = parseApache(text)
	}
	if err != nil {
		return nil, fmt.Errorf("log format %q: %w", s, err)
	}
	lo.text = s
	return lo, lo.check()
}

var (
	nginxDirective  = regexp.MustCompile(`^\s*log_format\s+\S+\s+(?:escape=\S+\s+)?`)
	apacheDirective = regexp.MustCompile(`^\s*(?:LogFormat|CustomLog\s+\S+)\s+`)
	nginxVar        = regexp.MustCompile(`\$(\{[A-Za-z0-9_]+\}|[A-Za-z0-9_]+)`)
)

// layoutText strips a pasted directive down to its format string and tells
// whose it is.
func layoutText(s string) (text, server string, err error) {
	t := strings.TrimSpace(s)
	switch {
	case nginxDirective.MatchString(t):
		return nginxStrings(nginxDirective.ReplaceAllString(t, "")), "nginx", nil
	case apacheDirective.MatchString(t):
		return apacheString(apacheDirective.ReplaceAllString(t, "")), "apache", nil
	}
	hasVar, hasDirective := nginxVar.MatchString(t), strings.Contains(t, "%")
	switch {
	case hasVar && !hasDirective:
		return t, "nginx", nil
	case hasDirective && !hasVar:
		return t, "apache", nil
	}
	return "", "", fmt.Errorf("log format %q: want an nginx log_format ($remote_addr …) or an Apache LogFormat (%%h …)", s)
}

// nginxStrings joins the quoted pieces of a log_format's value ('a' 'b';).
func nginxStrings(s string) string {
	s = strings.TrimSuffix(strings.TrimSpace(s), ";")
	var b strings.Builder
	for len(s) > 0 {
		s = strings.TrimSpace(s)
		if s == "" || (s[0] != '\'' && s[0] != '"') {
			b.WriteString(s)
			break
		}
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 {
			b.WriteString(s[1:])
			break
		}
		b.WriteString(s[1 : end+1])
		s = s[end+2:]
	}
	return b.String()
}

// apacheString is a LogFormat's quoted format string, unescaped, without
// the nickname that may follow it.
func apacheString(s string) string {
	s = strings.TrimSpace(s)
	if len(s) == 0 || s[0] != '"' {
		return s
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case s[i] == '"':
			return b.String()
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func parseNginx(text string) (*layout, error) {
	lo := &layout{server: "nginx"}
	rest := text
	for len(rest) > 0 {
		loc := nginxVar.FindStringSubmatchIndex(rest)
		if loc == nil {
			lo.literal(rest)
			break
		}
		lo.literal(rest[:loc[0]])
		name := strings.Trim(rest[loc[2]:loc[3]], "{}")
		f := nginxVars[name]
		f.name = name
		lo.field(f)
		rest = rest[loc[1]:]
	}
	return lo, nil
}

func (lo *layout) literal(s string) {
	if s == "" {
		return
	}
	if n := len(lo.items); n > 0 && lo.items[n-1].f == nil {
		lo.items[n-1].lit += s
		return
	}
	lo.items = append(lo.items, layoutItem{lit: s})
}

func (lo *layout) field(f logField) { lo.items = append(lo.items, layoutItem{f: &f}) }

// check refuses what a line could not be read back by: two fields with no
// text between them, and two fields that both give the time or the latency.
func (lo *layout) check() error {
	seen := map[fieldRole]string{}
	names := map[string]bool{}
	for i, it := range lo.items {
		if it.f == nil {
			continue
		}
		if names[it.f.name] {
			return fmt.Errorf("log format %q: it names %s twice, and a line would keep only one: keep one", lo.text, it.f.name)
		}
		names[it.f.name] = true
		if i > 0 && lo.items[i-1].f != nil {
			return fmt.Errorf("log format %q: fields %s and %s have no text between them, so a line cannot be split", lo.text, lo.items[i-1].f.name, it.f.name)
		}
		switch it.f.role {
		case roleTime, roleLatency, roleStatus:
			if prev, ok := seen[it.f.role]; ok {
				return fmt.Errorf("log format %q: %s and %s both give the request's %s: keep one", lo.text, prev, it.f.name, roleName(it.f.role))
			}
			seen[it.f.role] = it.f.name
		}
	}
	return nil
}

func roleName(r fieldRole) string {
	return map[fieldRole]string{roleTime: "time", roleLatency: "duration", roleStatus: "status"}[r]
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
