package logformat

import (
	"fmt"
	"sort"
	"strings"
)

// squidBuiltins are Squid's predefined formats, by name (squid.conf's
// logformat documentation).
var squidBuiltins = map[string]string{
	"squid":     `%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt`,
	"common":    `%>a %[ui %[un [%tl] "%rm %ru HTTP/%rv" %>Hs %<st %Ss:%Sh`,
	"combined":  `%>a %[ui %[un [%tl] "%rm %ru HTTP/%rv" %>Hs %<st "%{Referer}>h" "%{User-Agent}>h" %Ss:%Sh`,
	"referrer":  `%ts.%03tu %>a %{Referer}>h %ru`,
	"useragent": `%>a [%tl] "%{User-Agent}>h"`,
}

// squidCodes are the format codes rewind reads, with their fields. %ts,
// %tl and %tg are the time Squid writes the line, when the transaction
// ends ("current time"); %tS is its start; %tr is the response time in ms,
// from the request's header received to the reply sent.
var squidCodes = map[string]Field{
	"ts": {Name: "time_sec", Role: Time, EpochUnitUs: 1e6, WholeEpoch: true, End: true, StepMs: 1000},
	"tu": {Name: "time_msec_frac"},
	"tS": {Name: "time_start", Role: Time, EpochUnitUs: 1e6, StepMs: 1},
	"tr": {Name: "response_time_ms", Role: Latency, Shift: 0, Whole: true},
	"dt": {Name: "dns_time_ms"}, "<tt": {Name: "peer_total_time_ms"}, "<pt": {Name: "peer_response_time_ms"},
	">a": {Name: "remote_addr"}, ">A": {Name: "remote_host"}, ">p": {Name: "remote_port"},
	"<a": {Name: "peer_addr"}, "<A": {Name: "peer_host"}, "<p": {Name: "peer_port"},
	"la": {Name: "local_addr"}, "lp": {Name: "local_port"}, "<la": {Name: "peer_local_addr"}, "<lp": {Name: "peer_local_port"},
	"un": {Name: "remote_user"}, "ul": {Name: "user_login"}, "ui": {Name: "user_ident"}, "ue": {Name: "user_external"}, "us": {Name: "user_ssl"},
	"Ss": {Name: "squid_status"}, "Sh": {Name: "hierarchy"}, ">Hs": {Name: "status", Role: Status}, "<Hs": {Name: "upstream_status"},
	"<st": {Name: "bytes_sent"}, ">st": {Name: "bytes_received"}, "st": {Name: "bytes_transferred"},
	"<sh": {Name: "reply_header_bytes"}, ">sh": {Name: "request_header_bytes"},
	"rm": {Name: "method"}, "ru": {Name: "url"}, "rp": {Name: "path"}, "rv": {Name: "protocol_version"},
	">rm": {Name: "client_method"}, ">ru": {Name: "client_url"}, "mt": {Name: "content_type"},
	"sn": {Name: "sequence_number"}, "err_code": {Name: "err_code"}, "err_detail": {Name: "err_detail"},
	"ea": {Name: "external_acl_log"}, "et": {Name: "external_acl_tag"}, "ssl::bump_mode": {Name: "ssl_bump_mode"},
}

// squidCodesLongest lists the codes (and >h, <h) longest first, so
// reading one takes the longest that fits.
var squidCodesLongest = func() []string {
	out := []string{">h", "<h", "note", "tl", "tg"}
	for k := range squidCodes {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) || len(out[i]) == len(out[j]) && out[i] < out[j] })
	return out
}()

// parseSquid reads a Squid logformat: % [encoding] [-] [[0]width][.max]
// [{arg}] code [{arg}], or one of the built-in formats by name.
func parseSquid(text string) (*Layout, error) {
	if b, ok := squidBuiltins[strings.TrimSpace(text)]; ok {
		text = b
	}
	lo := &Layout{}
	rest := text
	for len(rest) > 0 {
		i := strings.IndexByte(rest, '%')
		if i < 0 {
			lo.literal(rest)
			break
		}
		lo.literal(rest[:i])
		if strings.HasPrefix(rest[i:], "%%") {
			lo.literal("%")
			rest = rest[i+2:]
			continue
		}
		n, err := lo.squidCode(rest[i+1:])
		if err != nil {
			return nil, err
		}
		rest = rest[i+1+n:]
	}
	return lo.squidTimes()
}

// squidCode reads one code after its %, adds its field and says how many
// bytes it took.
func (lo *Layout) squidCode(s string) (int, error) {
	i := 0
	for i < len(s) && strings.IndexByte(`"[#/'-`, s[i]) >= 0 {
		i++
	}
	// A width pads with spaces before the value, one with a leading 0
	// with zeros.
	pad := i < len(s) && s[i] >= '1' && s[i] <= '9'
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	arg := ""
	if i < len(s) && s[i] == '{' {
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return 0, fmt.Errorf("%%%s: a { not closed", truncate(s, 20))
		}
		arg, i = s[i+1:i+end], i+end+1
	}
	for _, code := range squidCodesLongest {
		if !strings.HasPrefix(s[i:], code) {
			continue
		}
		i += len(code)
		if arg == "" && strings.HasPrefix(s[i:], "{") {
			if end := strings.IndexByte(s[i:], '}'); end > 0 {
				arg, i = s[i+1:i+end], i+end+1
			}
		}
		return i, lo.squidField(code, arg, pad)
	}
	return 0, fmt.Errorf("%%%s is not a Squid logformat code rewind knows", truncate(s, 12))
}

func (lo *Layout) squidField(code, arg string, pad bool) error {
	switch code {
	case ">h", "<h":
		f := apacheNamed(map[string]string{">h": "i", "<h": "o"}[code], arg)
		if arg == "" {
			f.Name = map[string]string{">h": "request_headers", "<h": "reply_headers"}[code]
		}
		lo.field(f)
		return nil
	case "note":
		lo.field(Field{Name: "note_" + strings.ToLower(arg)})
		return nil
	case "tl", "tg":
		if arg == "" {
			arg = "%d/%b/%Y:%H:%M:%S %z"
		}
		goLayout, err := strftimeLayout(arg)
		if err != nil {
			return fmt.Errorf("%%{%s}%s: %w", arg, code, err)
		}
		lo.field(Field{Name: map[string]string{"tl": "time_local", "tg": "time_gmt"}[code], Role: Time, GoLayout: goLayout, End: true, StepMs: 1000})
		return nil
	}
	f := squidCodes[code]
	f.Pad = pad
	lo.field(f)
	return nil
}

// squidTimes makes one time of %ts.%03tu: the seconds and their
// milliseconds.
func (lo *Layout) squidTimes() (*Layout, error) {
	var out []Item
	for i := 0; i < len(lo.Items); i++ {
		it := lo.Items[i]
		if it.F != nil && it.F.Name == "time_sec" && i+2 < len(lo.Items) && lo.Items[i+1].Lit == "." &&
			lo.Items[i+2].F != nil && lo.Items[i+2].F.Name == "time_msec_frac" {
			f := *it.F
			f.Name, f.WholeEpoch, f.StepMs = "time", false, 1
			out = append(out, Item{F: &f})
			i += 2
			continue
		}
		out = append(out, it)
	}
	lo.Items = out
	return lo, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
