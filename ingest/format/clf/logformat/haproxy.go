package logformat

import (
	"fmt"
	"strings"
)

// haproxyAliases are HAProxy's log-format variables (configuration.txt,
// "Custom log format") with a meaning beyond "keep it in attrs". %tr,
// %trg and %trl are when the request was received, %t, %T, %Tl and %Ts
// when the connection was accepted: both are starts; %Ta is the active
// time, from the request received to the response's end, in ms; %Tt the
// total from the accept. %tr and %t carry no zone, so they are refused
// with the variables that do.
var haproxyAliases = map[string]Field{
	"trg": {Name: "request_date", Role: Time, GoLayout: "02/Jan/2006:15:04:05 -0700", StepMs: 1000},
	"trl": {Name: "request_date", Role: Time, GoLayout: "02/Jan/2006:15:04:05 -0700", StepMs: 1000},
	"T":   {Name: "accept_date", Role: Time, GoLayout: "02/Jan/2006:15:04:05 -0700", StepMs: 1000},
	"Tl":  {Name: "accept_date", Role: Time, GoLayout: "02/Jan/2006:15:04:05 -0700", StepMs: 1000},
	"Ts":  {Name: "accept_ts", Role: Time, EpochUnitUs: 1e6, WholeEpoch: true, StepMs: 1000},
	"Ta":  {Name: "Ta", Role: Latency, Shift: 0, Whole: true},
	"Tt":  {Name: "Tt", Role: Latency, Shift: 0, Whole: true},
	"ST":  {Name: "status", Role: Status},
	"r":   {Name: "request", Role: Request},
	"ID":  {Name: "unique_id", Role: ReqID},
	"ci":  {Name: "client_ip"}, "cp": {Name: "client_port"}, "fi": {Name: "frontend_ip"}, "fp": {Name: "frontend_port"},
	"f": {Name: "frontend"}, "ft": {Name: "frontend_transport"}, "b": {Name: "backend"}, "s": {Name: "server"},
	"bi": {Name: "backend_ip"}, "bp": {Name: "backend_port"}, "si": {Name: "server_ip"}, "sp": {Name: "server_port"},
	"TR": {Name: "TR"}, "Tw": {Name: "Tw"}, "Tc": {Name: "Tc"}, "Tr": {Name: "Tr"}, "Th": {Name: "Th"}, "Ti": {Name: "Ti"}, "Tq": {Name: "Tq"},
	"B": {Name: "bytes_read"}, "U": {Name: "bytes_uploaded"}, "CC": {Name: "captured_request_cookie"}, "CS": {Name: "captured_response_cookie"},
	"ts": {Name: "termination_state"}, "tsc": {Name: "termination_state"}, "ac": {Name: "actconn"}, "fc": {Name: "feconn"},
	"bc": {Name: "beconn"}, "sc": {Name: "srv_conn"}, "rc": {Name: "retries"}, "sq": {Name: "srv_queue"}, "bq": {Name: "backend_queue"},
	"hr": {Name: "captured_request_headers"}, "hs": {Name: "captured_response_headers"}, "hrl": {Name: "captured_request_headers"},
	"hsl": {Name: "captured_response_headers"}, "HM": {Name: "method"}, "HU": {Name: "uri"}, "HP": {Name: "path"}, "HPO": {Name: "path_only"},
	"HQ": {Name: "query"}, "HV": {Name: "http_version"}, "H": {Name: "hostname"}, "pid": {Name: "pid"}, "rt": {Name: "request_counter"},
	"lc": {Name: "log_counter"}, "sslc": {Name: "ssl_ciphers"}, "sslv": {Name: "ssl_version"}, "ms": {Name: "accept_ms"},
}

// parseHAProxy reads a log-format string.
func parseHAProxy(text string) (*Layout, error) {
	lo := &Layout{}
	rest := text
	for len(rest) > 0 {
		i := strings.IndexByte(rest, '%')
		if i < 0 {
			lo.literal(rest)
			break
		}
		lo.literal(rest[:i])
		n, err := lo.haproxyVar(rest[i+1:])
		if err != nil {
			return nil, err
		}
		rest = rest[i+1+n:]
	}
	return lo.haproxyTimes().haproxyLatency(), nil
}

// haproxyTimes makes one time of %Ts.%ms: the accept's seconds and their
// milliseconds.
func (lo *Layout) haproxyTimes() *Layout {
	var out []Item
	for i := 0; i < len(lo.Items); i++ {
		it := lo.Items[i]
		if it.F != nil && it.F.Name == "accept_ts" && i+2 < len(lo.Items) && lo.Items[i+1].Lit == "." &&
			lo.Items[i+2].F != nil && lo.Items[i+2].F.Name == "accept_ms" {
			f := *it.F
			f.WholeEpoch, f.StepMs = false, 1
			out = append(out, Item{F: &f})
			i += 2
			continue
		}
		out = append(out, it)
	}
	lo.Items = out
	return lo
}

// haproxyVar reads one variable after its %: %{+Q}r, %[sample], %Ta.
func (lo *Layout) haproxyVar(s string) (int, error) {
	i, quoted := 0, false
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return 0, fmt.Errorf("%%%s: a { not closed", truncate(s, 12))
		}
		quoted = strings.Contains(s[:end], "+Q") // the value in double quotes
		i = end + 1
	}
	if quoted {
		lo.literal(`"`)
		defer lo.literal(`"`)
	}
	if strings.HasPrefix(s[i:], "[") {
		end := strings.IndexByte(s[i:], ']')
		if end < 0 {
			return 0, fmt.Errorf("%%%s: a [ not closed", truncate(s, 12))
		}
		name := strings.NewReplacer(".", "_", "(", "_", ")", "", ",", "_", "-", "_").Replace(s[i+1 : i+end])
		lo.field(Field{Name: "sample_" + strings.ToLower(name)})
		return i + end + 1, nil
	}
	if strings.HasPrefix(s[i:], "%") {
		lo.literal("%")
		return i + 1, nil
	}
	j := i
	for j < len(s) && isWordByte(s[j]) {
		j++
	}
	name := s[i:j]
	for name != "" { // the longest alias that is one: %Tq/ is Tq, %ts, %tsc
		if f, ok := haproxyAliases[name]; ok && f.Name != "" {
			lo.field(f)
			return i + len(name), nil
		}
		if name == "t" || name == "tr" {
			return 0, fmt.Errorf("%%%s is a local time without a zone: use %%trg (GMT) or %%trl (with its zone), or %%Ts.%%ms; HAProxy's default httplog lines are read as they are, without a format line", name)
		}
		name = name[:len(name)-1]
	}
	return 0, fmt.Errorf("%%%s is not a HAProxy log-format variable rewind knows", truncate(s[i:], 12))
}

// haproxyLatency keeps one duration: %Ta, which fits the request's
// received date, else %Tt.
func (lo *Layout) haproxyLatency() *Layout {
	hasTa := false
	for _, it := range lo.Items {
		hasTa = hasTa || it.F != nil && it.F.Name == "Ta"
	}
	for _, it := range lo.Items {
		if hasTa && it.F != nil && it.F.Name == "Tt" {
			it.F.Role = Attr
		}
	}
	return lo
}
