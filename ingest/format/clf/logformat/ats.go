package logformat

import (
	"fmt"
	"strings"
)

// atsFields are the Traffic Server log fields (logging.yaml %<field>)
// with a meaning beyond "keep it in attrs". The client request timestamps
// (cqt*) are when the client's request arrived: the start
// (proxy/logging/LogAccess.cc, marshal_client_req_timestamp_*: the
// transaction's client_request_begin milestone); ttms is the time Traffic
// Server spent on the transaction in ms, tts in whole seconds, ttmsf in
// ms with a fraction.
var atsFields = map[string]Field{
	"cqtq":  {Name: "time", Role: Time, EpochUnitUs: 1e6, StepMs: 1},
	"cqts":  {Name: "time_sec", Role: Time, EpochUnitUs: 1e6, WholeEpoch: true, StepMs: 1000},
	"cqtn":  {Name: "time_local", Role: Time, GoLayout: clfTime, StepMs: 1000},
	"ttms":  {Name: "request_time_ms", Role: Latency, Shift: 0, Whole: true},
	"tts":   {Name: "request_time_s", Role: Latency, Shift: 3, Whole: true},
	"ttmsf": {Name: "request_time_ms", Role: Latency, Shift: 0},
	"pssc":  {Name: "status", Role: Status},
	"cqtx":  {Name: "request", Role: Request},
	"chi":   {Name: "remote_addr"}, "caun": {Name: "remote_user"}, "cqhm": {Name: "method"},
	"cquc": {Name: "client_url"}, "pquc": {Name: "url"}, "cqup": {Name: "client_path"}, "pqup": {Name: "path"},
	"cqhv": {Name: "server_protocol"}, "sssc": {Name: "upstream_status"}, "pscl": {Name: "body_bytes_sent"},
	"psql": {Name: "bytes_sent"}, "crc": {Name: "cache_result"}, "phr": {Name: "hierarchy"},
	"shn": {Name: "upstream_host"}, "psct": {Name: "content_type"}, "cqhl": {Name: "request_header_bytes"},
}

// parseATS reads a Traffic Server logging.yaml format: %<field> and
// %<{Header}cqh>-style header fields.
func parseATS(text string) (*Layout, error) {
	lo := &Layout{}
	rest := text
	for len(rest) > 0 {
		i := strings.Index(rest, "%<")
		if i < 0 {
			lo.literal(rest)
			break
		}
		lo.literal(rest[:i])
		end := strings.IndexByte(rest[i:], '>')
		if end < 0 {
			return nil, fmt.Errorf("%q: a %%< not closed by >", truncate(rest[i:], 20))
		}
		if err := lo.atsField(rest[i+2 : i+end]); err != nil {
			return nil, err
		}
		rest = rest[i+end+1:]
	}
	return lo, nil
}

func (lo *Layout) atsField(code string) error {
	if strings.HasPrefix(code, "{") {
		name, kind, ok := strings.Cut(code[1:], "}")
		if !ok {
			return fmt.Errorf("%%<%s>: a { not closed", code)
		}
		prefix := map[string]string{"cqh": "http_", "pqh": "proxy_http_", "psh": "sent_http_", "ssh": "upstream_http_"}[kind]
		if prefix == "" {
			prefix = "ats_" + kind + "_"
		}
		f := apacheNamed("i", name)
		f.Name = prefix + strings.TrimPrefix(f.Name, "http_")
		if kind != "cqh" {
			f.Role = Attr
		}
		lo.field(f)
		return nil
	}
	if f, ok := atsFields[code]; ok {
		lo.field(f)
		return nil
	}
	if strings.HasPrefix(code, "cqt") || strings.HasPrefix(code, "tt") {
		return fmt.Errorf("%%<%s> is a time rewind does not read: use %%<cqtq> (start, seconds.ms) and %%<ttms> (ms)", code)
	}
	if !isWord(code) {
		return fmt.Errorf("%%<%s> is not a Traffic Server log field", code)
	}
	lo.field(Field{Name: "ats_" + code})
	return nil
}
