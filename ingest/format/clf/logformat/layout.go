// Package logformat translates a server's access-log format line, written
// in that server's own language (nginx log_format, Apache LogFormat,
// lighttpd accesslog.format, Tomcat's AccessLogValve pattern, varnishncsa
// -F, Squid logformat, Traffic Server logging.yaml, h2o access-log format,
// Envoy's access-log format, HAProxy log-format), into the one layout
// rewind's line reader reads: literal text between fields, each field with
// what it means, and for times and durations the server's own semantics
// (start or end of the request, unit, resolution), each from the server's
// documentation or source (docs/formats/servers.md).
//
// It depends on nothing of the rest of rewind: a format line in, a Layout
// or an error out.
package logformat

import (
	"fmt"
	"strings"
)

// Role is what a field gives the request.
type Role int

// The roles, in the order ingest's line reader numbers them.
const (
	Attr    Role = iota // kept in attrs under its name
	Status              // the HTTP status
	Request             // the request line: method, path and protocol
	Time                // a time of the request (start or end)
	Latency             // the request's duration
	ReqID               // a request id
	List                // nginx's upstream times: "0.001, 0.003 : 0.002", kept as text
)

// A Field is one field of a layout and what it means.
type Field struct {
	Name string // the attrs key: nginx's variable name where the server has one alike
	Role Role
	// Time: a Go layout, or EpochUnitUs > 0 for a number of that many µs
	// since the epoch, whole when WholeEpoch, else with a fraction.
	GoLayout    string
	EpochUnitUs int64
	WholeEpoch  bool
	Frac        bool    // a fraction of a second alone (%{msec_frac}t), merged into the time before it
	End         bool    // the server writes the time when the request ended
	StepMs      float64 // the time's resolution in ms
	// Latency: the value's decimal exponent to ms (seconds 3, µs -3, ns
	// -6) and whether the server writes a whole number.
	Shift int
	Whole bool
	// Pad: the server pads the value to a width with spaces before it
	// (Squid's %6tr), so a line may hold more spaces than the format.
	Pad bool
}

// An Item is literal text (F nil) or a field.
type Item struct {
	Lit string
	F   *Field
}

// A Layout is the shape of one line.
type Layout struct {
	Items  []Item
	Server string // the server whose language the line is in (a key of Servers)
	Text   string // as given, for messages
	// Guessed is set when the server was told by the line alone as
	// Apache's, and the line has a time: lighttpd, Tomcat, varnishncsa and
	// h2o write the same directives, and lighttpd's and Tomcat's %t is the
	// end, not the start.
	Guessed bool
}

// Servers names each language Parse reads, by its --server name, with the
// server's name for messages.
var Servers = map[string]string{
	"nginx": "nginx", "apache": "Apache", "lighttpd": "lighttpd", "tomcat": "Tomcat",
	"tomcat9": "Tomcat 9", "tomcat10": "Tomcat 10", "varnishncsa": "varnishncsa", "squid": "Squid",
	"trafficserver": "Traffic Server", "h2o": "h2o", "envoy": "Envoy", "haproxy": "HAProxy",
}

// ServerNames lists the --server names, sorted.
const ServerNames = "apache, envoy, h2o, haproxy, lighttpd, nginx, squid, tomcat, tomcat9, tomcat10, trafficserver, varnishncsa"

// Parse reads a format line in server's language ("" to tell nginx from
// Apache by the line alone, or by the configuration directive pasted with
// it). The line may be pasted with its configuration wrapper.
func Parse(server, s string) (*Layout, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errorf("log format is empty: give the server's format line, e.g. '%%h %%l %%u %%t \"%%r\" %%>s %%b %%D'")
	}
	guessed := false
	if server == "" {
		var err error
		if server, err = guessServer(s); err != nil {
			return nil, err
		}
		guessed = server == "apache" && !wrappers["apache"].MatchString(strings.TrimSpace(s))
	}
	parse, ok := parsers[server]
	if !ok {
		return nil, errorf("{server} %q: want one of %s", server, ServerNames)
	}
	lo, err := parse(unwrap(server, s))
	if err != nil {
		return nil, prefixed(s, err)
	}
	lo.Server, lo.Text = server, s
	lo.Guessed = guessed && lo.TimeField() != nil
	if err := lo.check(); err != nil {
		return nil, prefixed(s, err)
	}
	return lo, nil
}

var parsers = map[string]func(string) (*Layout, error){
	"nginx": parseNginx, "apache": parseApache, "lighttpd": parseLighttpd,
	"tomcat": parseTomcat(0), "tomcat9": parseTomcat(9), "tomcat10": parseTomcat(10),
	"varnishncsa": parseVarnish, "squid": parseSquid, "trafficserver": parseATS,
	"h2o": parseH2O, "envoy": parseEnvoy, "haproxy": parseHAProxy,
}

func (lo *Layout) literal(s string) {
	if s == "" {
		return
	}
	if n := len(lo.Items); n > 0 && lo.Items[n-1].F == nil {
		lo.Items[n-1].Lit += s
		return
	}
	lo.Items = append(lo.Items, Item{Lit: s})
}

func (lo *Layout) field(f Field) { lo.Items = append(lo.Items, Item{F: &f}) }

// check refuses what a line could not be read back by: two fields with no
// text between them, a key named twice, and two fields that both give the
// time, the duration or the status.
func (lo *Layout) check() error {
	seen := map[Role]string{}
	names := map[string]bool{}
	for i, it := range lo.Items {
		if it.F == nil {
			continue
		}
		if i > 0 && lo.Items[i-1].F != nil {
			return fmt.Errorf("fields %s and %s have no text between them, so a line cannot be split", lo.Items[i-1].F.Name, it.F.Name)
		}
		if names[it.F.Name] {
			return fmt.Errorf("it names %s twice, and a line would keep only one: keep one", it.F.Name)
		}
		names[it.F.Name] = true
		switch it.F.Role {
		case Time, Latency, Status:
			if prev, ok := seen[it.F.Role]; ok {
				return fmt.Errorf("%s and %s both give the request's %s: keep one", prev, it.F.Name, roleName(it.F.Role))
			}
			seen[it.F.Role] = it.F.Name
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("it has no field: give the server's format line")
	}
	return nil
}

func roleName(r Role) string {
	return map[Role]string{Time: "time", Latency: "duration", Status: "status"}[r]
}

// TimeField is the layout's time, nil without one.
func (lo *Layout) TimeField() *Field {
	for _, it := range lo.Items {
		if it.F != nil && it.F.Role == Time {
			return it.F
		}
	}
	return nil
}

// HasLatency tells whether a field gives the request's duration.
func (lo *Layout) HasLatency() bool {
	for _, it := range lo.Items {
		if it.F != nil && it.F.Role == Latency {
			return true
		}
	}
	return false
}
