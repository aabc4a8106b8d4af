package ingest

import (
	"fmt"
	"regexp"
	"strings"
)

// apacheDirectiveRe is one LogFormat directive: %h, %>s, %{Referer}i,
// %{%d/%b/%Y}t, with Apache's optional status condition (%400,501{X}i).
var apacheDirectiveRe = regexp.MustCompile(`%(?:!?[0-9,]+)?([<>]?)(?:\{([^}]*)\})?([<>]?)([a-zA-Z%])`)

func parseApache(text string) (*layout, error) {
	lo := &layout{server: "apache"}
	rest := text
	for len(rest) > 0 {
		loc := apacheDirectiveRe.FindStringSubmatchIndex(rest)
		if loc == nil {
			lo.literal(rest)
			break
		}
		lo.literal(rest[:loc[0]])
		sub := func(i int) string {
			if loc[2*i] < 0 {
				return ""
			}
			return rest[loc[2*i]:loc[2*i+1]]
		}
		mod, arg, letter := sub(1)+sub(3), sub(2), sub(4)
		rest = rest[loc[1]:]
		if letter == "%" {
			lo.literal("%")
			continue
		}
		if err := lo.apacheField(mod, arg, letter); err != nil {
			return nil, err
		}
	}
	return lo.mergeTimes()
}

// apacheField adds the field of one directive.
func (lo *layout) apacheField(mod, arg, letter string) error {
	switch letter {
	case "t":
		return lo.apacheTime(arg)
	case "r":
		lo.field(logField{name: "request", role: roleRequest})
	case "s":
		if mod == "<" {
			lo.field(logField{name: "original_status"})
			return nil
		}
		lo.field(logField{name: "status", role: roleStatus})
	case "D":
		lo.field(logField{name: "request_time_us", role: roleLatency, shift: -3, whole: true})
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
			return fmt.Errorf("%%%s is not an Apache LogFormat directive rewind knows", letter)
		}
		if letter == "L" {
			lo.field(logField{name: name, role: roleReqID})
			return nil
		}
		if arg != "" && (letter == "p" || letter == "a") {
			name = map[string]string{"canonical": "server_port", "local": "local_port", "remote": "remote_port", "c": "peer_addr"}[arg]
			if name == "" {
				name = "port_" + arg
			}
		}
		lo.field(logField{name: name})
	}
	return nil
}

// apacheNamed is a header, environment variable, note or cookie, named as
// nginx names headers: %{User-Agent}i is http_user_agent.
func apacheNamed(letter, arg string) logField {
	key := strings.ToLower(strings.ReplaceAll(arg, "-", "_"))
	prefix := map[string]string{"i": "http_", "o": "sent_http_", "e": "env_", "n": "note_", "C": "cookie_"}[letter]
	f := logField{name: prefix + key}
	if (letter == "i" && key == "x_request_id") || (letter == "e" && key == "unique_id") {
		f.role = roleReqID
	}
	return f
}

// apacheDuration is %T: whole seconds, or %{ms}T, %{us}T, %{s}T.
func (lo *layout) apacheDuration(unit string) error {
	shift, ok := map[string]int{"": 3, "s": 3, "ms": 0, "us": -3}[unit]
	if !ok {
		return fmt.Errorf("%%{%s}T: want s, ms or us", unit)
	}
	name := "request_time_s"
	if unit == "ms" || unit == "us" {
		name = "request_time_" + unit
	}
	lo.field(logField{name: name, role: roleLatency, shift: shift, whole: true})
	return nil
}

// apacheTime is %t (the request's start, in brackets) or %{FORMAT}t: a
// strftime format, or sec/msec/usec since the epoch, each with an optional
// begin: or end: prefix (begin by default, as in Apache).
func (lo *layout) apacheTime(arg string) error {
	end := false
	switch {
	case strings.HasPrefix(arg, "end:"):
		end, arg = true, strings.TrimPrefix(arg, "end:")
	case strings.HasPrefix(arg, "begin:"):
		arg = strings.TrimPrefix(arg, "begin:")
	}
	switch arg {
	case "":
		lo.literal("[")
		lo.field(logField{name: "time_local", role: roleTime, goLayout: clfTime, end: end, stepMs: 1000})
		lo.literal("]")
		return nil
	case "sec", "msec", "usec":
		unit := map[string]int64{"sec": 1e6, "msec": 1e3, "usec": 1}[arg]
		step := map[string]float64{"sec": 1000, "msec": 1, "usec": 0.001}[arg]
		lo.field(logField{name: "time_" + arg, role: roleTime, epochUnitUs: unit, wholeEpoch: true, end: end, stepMs: step})
		return nil
	case "msec_frac", "usec_frac":
		lo.field(logField{name: "time_" + arg, role: roleTime, goLayout: strings.Repeat("0", map[string]int{"msec_frac": 3, "usec_frac": 6}[arg]),
			frac: true, end: end, stepMs: map[string]float64{"msec_frac": 1, "usec_frac": 0.001}[arg]})
		return nil
	}
	goLayout, err := strftimeLayout(arg)
	if err != nil {
		return err
	}
	lo.field(logField{name: "time", role: roleTime, goLayout: goLayout, end: end, stepMs: 1000})
	return nil
}

// strftimeGo maps the strftime conversions Apache's %{FORMAT}t takes to Go.
var strftimeGo = map[byte]string{
	'd': "02", 'e': "_2", 'b': "Jan", 'h': "Jan", 'B': "January", 'm': "01", 'y': "06", 'Y': "2006",
	'H': "15", 'I': "03", 'M': "04", 'S': "05", 'p': "PM", 'z': "-0700", 'Z': "MST", 'a': "Mon", 'A': "Monday",
	'j': "002", 'T': "15:04:05", 'F': "2006-01-02", 'D': "01/02/06", 'R': "15:04", '%': "%",
}

func strftimeLayout(f string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			if strings.ContainsRune("0123456789JFMASONDjfmasondPMpm", rune(f[i])) {
				return "", fmt.Errorf("%%{%s}t: the text %q would read as part of the time", f, f[i:i+1])
			}
			b.WriteByte(f[i])
			continue
		}
		if i+1 == len(f) {
			return "", fmt.Errorf("%%{%s}t: a lone %% at the end", f)
		}
		i++
		g, ok := strftimeGo[f[i]]
		if !ok {
			return "", fmt.Errorf("%%{%s}t: %%%c is not a conversion rewind reads", f, f[i])
		}
		b.WriteString(g)
	}
	return b.String(), nil
}

// mergeTimes makes one time field of time directives that stand next to
// each other with only separators between them, as in Apache's millisecond
// recipe [%{%d/%b/%Y:%H:%M:%S}t.%{msec_frac}t %{%z}t]: the line's time is
// read from all of them at once.
func (lo *layout) mergeTimes() (*layout, error) {
	var out []layoutItem
	for i := 0; i < len(lo.items); i++ {
		it := lo.items[i]
		if it.f == nil || it.f.role != roleTime || it.f.epochUnitUs != 0 {
			out = append(out, it)
			continue
		}
		f := *it.f
		for i+2 < len(lo.items) && isTimeSep(lo.items[i+1]) && mergeable(lo.items[i+2]) {
			next := lo.items[i+2].f
			if next.frac && !strings.HasSuffix(lo.items[i+1].lit, ".") {
				return nil, fmt.Errorf("%s: a fraction of a second must follow a '.'", next.name)
			}
			f.goLayout += lo.items[i+1].lit + next.goLayout
			f.stepMs = min(f.stepMs, next.stepMs)
			f.end = f.end || next.end
			f.frac = false
			i += 2
		}
		if f.frac {
			return nil, fmt.Errorf("%s: a fraction of a second needs the time before it", f.name)
		}
		out = append(out, layoutItem{f: &f})
	}
	lo.items = out
	return lo, nil
}

func isTimeSep(it layoutItem) bool {
	return it.f == nil && it.lit != "" && strings.Trim(it.lit, " .:-/T") == ""
}

func mergeable(it layoutItem) bool {
	return it.f != nil && it.f.role == roleTime && it.f.epochUnitUs == 0
}
