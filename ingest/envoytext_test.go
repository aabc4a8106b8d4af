package ingest

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/envoytext"
)

func FuzzEnvoyText(f *testing.F) {
	fuzzFormat(f, envoytext.Name, "testdata/real/envoy-text/*/input*")
}

const envoyLine = `[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21d9b0" "locations" "tcp://10.0.2.1:80"`

func TestEnvoyTextDetect(t *testing.T) {
	cases := []struct {
		head string
		want bool
	}{
		{envoyLine, true},
		{`[2020-11-25T21:26:18.409Z] "GET /status/418 HTTP/1.1" 418 - via_upstream - "-" 0 135 4 4 "-" "curl" "8496" "httpbin:8000" "10.44.1.27:80" outbound|8000||h 10.44.1.23:37652 10.0.45.184:8000 10.44.1.23:46520 - default`, true},
		{`[2016-04-15T20:17:00.310Z] "POST /api HTTP/2" 204 - 154 0 226 100 "10.0.35.28"`, false}, // too few fields
		{`[2016-04-15T20:17:00.310Z] "POST /api HTTP/2" 204 - 154 0 226 100 a b c d e`, false},    // the count fits, the quoting not
		{`[{"response_code":200,"duration":3}]`, false},
		{`["2016-04-15T20:17:00.310Z", "x"]`, false},
		{`[2016-04-15 20:17:00] "POST /api HTTP/2" 204 - 154 0 226 100 "a" "b" "c" "d" "e"`, false},
	}
	for _, c := range cases {
		if got := (envoytext.Format{}).Detect("access.log", []byte(c.head)); got != c.want {
			t.Errorf("detectEnvoyText(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

func TestEnvoyTextErrors(t *testing.T) {
	ok := envoyLine + "\n"
	checkErrors(t, envoytext.Name, "envoy.log", map[string]errorCase{
		"bad-time": {ok + `[yesterday] "GET / HTTP/1.1" 200 - 0 0 1 - "-" "-" "-" "-" "-"`,
			`:2: field "start_time": want an RFC 3339 time such as [2020-11-25T21:26:18.409Z], got "[yesterday]"`},
		"bad-code": {`[2016-04-15T20:17:00.310Z] "GET / HTTP/1.1" 2xx - 0 0 1 - "-" "-" "-" "-" "-"`,
			`:1: field "response_code": want an HTTP status code, got "2xx"`},
		"bad-duration": {ok + ok + `[2016-04-15T20:17:00.310Z] "GET / HTTP/1.1" 200 - 0 0 1.5 - "-" "-" "-" "-" "-"`,
			`:3: field "duration": want a non-negative integer (ms or bytes) or -, got "1.5"`},
		"bad-bytes": {`[2016-04-15T20:17:00.310Z] "GET / HTTP/1.1" 200 - x 0 1 - "-" "-" "-" "-" "-"`,
			`:1: field "bytes_received": want a non-negative integer`},
		"field-count": {ok + `[2016-04-15T20:17:00.310Z] "GET / HTTP/1.1" 200 - 0 0 1 - "-" "-" "-" "-"`,
			`:2: 8 fields after the response flags: not Envoy's or Istio's default text format (envoy: 9, istio-1.5: 17, istio-1.9: 16, istio: 18)`},
		"open-quote": {`[2016-04-15T20:17:00.310Z] "GET / HTTP/1.1" 200 - 0 0 1 - "-" "-" "-" "-" "-`, `:1: a quoted field is not closed`},
		"short":      {`[2016-04-15T20:17:00.310Z] "GET / HTTP/1.1"`, `:1: want [START_TIME] "METHOD PATH PROTOCOL" and the default format's fields`},
	})
}
