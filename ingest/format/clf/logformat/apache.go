package logformat

import (
	"fmt"
	"strings"
)

// apacheNames names Apache's directives in attrs as nginx names the same
// thing, so one query reads both servers' logs.
var apacheNames = map[string]string{
	"h": "remote_host", "a": "remote_addr", "A": "server_addr", "l": "remote_logname", "u": "remote_user",
	"b": "body_bytes_sent", "B": "body_bytes_sent", "O": "bytes_sent", "I": "bytes_received", "S": "bytes_transferred",
	"v": "server_name", "V": "host", "p": "server_port", "P": "pid", "k": "keepalive_requests",
	"X": "connection_status", "R": "handler", "f": "request_filename", "q": "query_string", "U": "uri",
	"m": "request_method", "H": "server_protocol", "<s": "original_status", "L": "request_log_id",
}

// parseApache reads a LogFormat string (mod_log_config: %t is "the time
// the request was received", %{end:…}t the end; %D is µs, %T seconds).
func parseApache(text string) (*Layout, error) {
	lo := &Layout{}
	err := scanPercent(lo, text, func(d directive) error { return lo.apacheField(d, "Apache LogFormat") })
	if err != nil {
		return nil, err
	}
	return lo.mergeTimes()
}

// apacheField adds the field of one of Apache's directives; lang names the
// language in a refusal.
func (lo *Layout) apacheField(d directive, lang string) error {
	mod, arg, letter := d.mod, d.arg, string(d.letter)
	switch letter {
	case "t":
		return lo.apacheTime(arg, false)
	case "r":
		lo.field(Field{Name: "request", Role: Request})
	case "s":
		if mod == "<" {
			lo.field(Field{Name: "original_status"})
			return nil
		}
		lo.field(Field{Name: "status", Role: Status})
	case "D":
		lo.field(Field{Name: "request_time_us", Role: Latency, Shift: -3, Whole: true})
	case "T":
		return lo.apacheDuration(arg)
	case "i", "o", "e", "n", "C":
		lo.field(apacheNamed(letter, arg))
	default:
		name, ok := apacheNames[mod+letter]
		if !ok {
			name, ok = apacheNames[letter]
		}
		if !ok {
			return fmt.Errorf("%%%s is not an %s directive rewind knows", letter, lang)
		}
		if letter == "L" {
			lo.field(Field{Name: name, Role: ReqID})
			return nil
		}
		if arg != "" && (letter == "p" || letter == "a") {
			name = map[string]string{"canonical": "server_port", "local": "local_port", "remote": "remote_port", "c": "peer_addr"}[arg]
			if name == "" {
				name = "port_" + arg
			}
		}
		lo.field(Field{Name: name})
	}
	return nil
}

// apacheNamed is a header, environment variable, note or cookie, named as
// nginx names headers: %{User-Agent}i is http_user_agent.
func apacheNamed(letter, arg string) Field {
	key := strings.ToLower(strings.ReplaceAll(arg, "-", "_"))
	prefix := map[string]string{"i": "http_", "o": "sent_http_", "e": "env_", "n": "note_", "C": "cookie_", "c": "cookie_"}[letter]
	f := Field{Name: prefix + key}
	if (letter == "i" && key == "x_request_id") || (letter == "e" && key == "unique_id") {
		f.Role = ReqID
	}
	return f
}

// apacheDuration is %T: whole seconds, or %{ms}T, %{us}T, %{s}T.
func (lo *Layout) apacheDuration(unit string) error {
	shift, ok := map[string]int{"": 3, "s": 3, "ms": 0, "us": -3}[unit]
	if !ok {
		return fmt.Errorf("%%{%s}T: want s, ms or us", unit)
	}
	name := "request_time_s"
	if unit == "ms" || unit == "us" {
		name = "request_time_" + unit
	}
	lo.field(Field{Name: name, Role: Latency, Shift: shift, Whole: true})
	return nil
}

// apacheTime is %t (in brackets) or %{FORMAT}t: a strftime format, or
// sec/msec/usec since the epoch, each with an optional begin: or end:
// prefix; without one the time is the request's end when end is set
// (lighttpd, Tomcat), else its start (Apache, varnishncsa, h2o).
func (lo *Layout) apacheTime(arg string, end bool) error {
	switch {
	case strings.HasPrefix(arg, "end:"):
		end, arg = true, strings.TrimPrefix(arg, "end:")
	case strings.HasPrefix(arg, "begin:"):
		end, arg = false, strings.TrimPrefix(arg, "begin:")
	}
	switch arg {
	case "":
		lo.literal("[")
		lo.field(Field{Name: "time_local", Role: Time, GoLayout: clfTime, End: end, StepMs: 1000})
		lo.literal("]")
		return nil
	case "sec", "msec", "usec":
		unit := map[string]int64{"sec": 1e6, "msec": 1e3, "usec": 1}[arg]
		step := map[string]float64{"sec": 1000, "msec": 1, "usec": 0.001}[arg]
		lo.field(Field{Name: "time_" + arg, Role: Time, EpochUnitUs: unit, WholeEpoch: true, End: end, StepMs: step})
		return nil
	case "msec_frac", "usec_frac":
		lo.field(Field{Name: "time_" + arg, Role: Time, GoLayout: strings.Repeat("0", map[string]int{"msec_frac": 3, "usec_frac": 6}[arg]),
			Frac: true, End: end, StepMs: map[string]float64{"msec_frac": 1, "usec_frac": 0.001}[arg]})
		return nil
	}
	goLayout, err := strftimeLayout(arg)
	if err != nil {
		return fmt.Errorf("%%{%s}t: %w", arg, err)
	}
	lo.field(Field{Name: "time", Role: Time, GoLayout: goLayout, End: end, StepMs: 1000})
	return nil
}

// strftimeGo maps the strftime conversions to Go.
var strftimeGo = map[byte]string{
	'd': "02", 'e': "_2", 'b': "Jan", 'h': "Jan", 'B': "January", 'm': "01", 'y': "06", 'Y': "2006",
	'H': "15", 'I': "03", 'M': "04", 'S': "05", 'p': "PM", 'z': "-0700", 'Z': "MST", 'a': "Mon", 'A': "Monday",
	'j': "002", 'T': "15:04:05", 'F': "2006-01-02", 'D': "01/02/06", 'R': "15:04", '%': "%",
}

// strftimeLayout is a strftime format as a Go layout.
func strftimeLayout(f string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			if strings.ContainsRune("0123456789JFMASONDjfmasondPMpm", rune(f[i])) {
				return "", fmt.Errorf("the text %q would read as part of the time", f[i:i+1])
			}
			b.WriteByte(f[i])
			continue
		}
		if i+1 == len(f) {
			return "", fmt.Errorf("a lone %% at the end")
		}
		i++
		g, ok := strftimeGo[f[i]]
		if !ok {
			return "", fmt.Errorf("%%%c is not a conversion rewind reads", f[i])
		}
		b.WriteString(g)
	}
	return b.String(), nil
}

// mergeTimes makes one time field of time directives that stand next to
// each other with only separators between them, as in Apache's millisecond
// recipe [%{%d/%b/%Y:%H:%M:%S}t.%{msec_frac}t %{%z}t]: the line's time is
// read from all of them at once.
func (lo *Layout) mergeTimes() (*Layout, error) {
	var out []Item
	for i := 0; i < len(lo.Items); i++ {
		it := lo.Items[i]
		if it.F == nil || it.F.Role != Time || it.F.EpochUnitUs != 0 {
			out = append(out, it)
			continue
		}
		f := *it.F
		for {
			sep, k := "", i+1 // the separator and the next time: none for h2o's %{usec_frac}t%{%z}t
			if k < len(lo.Items) && isTimeSep(lo.Items[k]) {
				sep, k = lo.Items[k].Lit, k+1
			}
			if k >= len(lo.Items) || !mergeable(lo.Items[k]) {
				break
			}
			next := lo.Items[k].F
			if next.Frac && !strings.HasSuffix(sep, ".") && !strings.HasSuffix(f.GoLayout, ".") {
				return nil, fmt.Errorf("%s: a fraction of a second must follow a '.'", next.Name)
			}
			f.GoLayout += sep + next.GoLayout
			f.StepMs = min(f.StepMs, next.StepMs)
			f.End = f.End || next.End
			f.Frac = false
			i = k
		}
		if f.Frac {
			return nil, fmt.Errorf("%s: a fraction of a second needs the time before it", f.Name)
		}
		out = append(out, Item{F: &f})
	}
	lo.Items = out
	return lo, nil
}

func isTimeSep(it Item) bool {
	return it.F == nil && it.Lit != "" && strings.Trim(it.Lit, " .:-/T") == ""
}

func mergeable(it Item) bool {
	return it.F != nil && it.F.Role == Time && it.F.EpochUnitUs == 0
}
