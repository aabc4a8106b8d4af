package logformat

import (
	"regexp"
	"strings"
)

// clfTime is nginx's $time_local and Apache's %t: whole seconds with the
// zone.
const clfTime = "02/Jan/2006:15:04:05 -0700"

// nginxVars are the nginx variables with a meaning beyond "keep it in
// attrs". nginx stamps every time variable when it writes the line, at the
// end of the request (ngx_http_log_module: the log handler runs in the
// log phase; $request_time is "request processing time in seconds with a
// milliseconds resolution").
var nginxVars = map[string]Field{
	"time_local":             {Role: Time, GoLayout: clfTime, End: true, StepMs: 1000},
	"time_iso8601":           {Role: Time, GoLayout: "2006-01-02T15:04:05-07:00", End: true, StepMs: 1000},
	"msec":                   {Role: Time, EpochUnitUs: 1e6, End: true, StepMs: 1},
	"status":                 {Role: Status},
	"request":                {Role: Request},
	"request_time":           {Role: Latency, Shift: 3},
	"request_id":             {Role: ReqID},
	"http_x_request_id":      {Role: ReqID},
	"upstream_response_time": {Role: List},
	"upstream_connect_time":  {Role: List},
	"upstream_header_time":   {Role: List},
	"upstream_addr":          {Role: List},
	"upstream_status":        {Role: List},
}

var nginxVar = regexp.MustCompile(`\$(\{[A-Za-z0-9_]+\}|[A-Za-z0-9_]+)`)

// parseNginx reads a log_format's string; each $variable is found from
// where the last ended, so a long format is read in linear time.
func parseNginx(text string) (*Layout, error) {
	lo := &Layout{}
	rest := text
	for len(rest) > 0 {
		i := strings.IndexByte(rest, '$')
		if i < 0 {
			lo.literal(rest)
			break
		}
		name, n := nginxName(rest[i+1:])
		if n == 0 {
			lo.literal(rest[:i+1])
			rest = rest[i+1:]
			continue
		}
		lo.literal(rest[:i])
		f := nginxVars[name]
		f.Name = name
		lo.field(f)
		rest = rest[i+1+n:]
	}
	return lo, nil
}

// nginxName is the variable name at the start of s (name or {name}) and
// how many bytes it takes, 0 for none.
func nginxName(s string) (string, int) {
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 2 || !isWord(s[1:end]) {
			return "", 0
		}
		return s[1:end], end + 1
	}
	n := 0
	for n < len(s) && isWordByte(s[n]) {
		n++
	}
	return s[:n], n
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return s != ""
}
