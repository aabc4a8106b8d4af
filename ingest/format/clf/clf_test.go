package clf

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/ingest/record"
)

// FuzzLogFormat reads any line with any layout: an error or rows, never a
// panic or a hang.
func FuzzLogFormat(f *testing.F) {
	f.Add(`$remote_addr - [$time_local] "$request" $status $request_time $upstream_response_time`, `1.2.3.4 - [01/May/2024:10:00:00 +0000] "GET / HTTP/1.1" 200 0.004 0.001, 0.002`)
	f.Add(`%h %l %u [%{%d/%b/%Y:%H:%M:%S}t.%{msec_frac}t %{%z}t] "%r" %>s %b %D`, `h - - [01/May/2024:10:00:00.123 +0200] "GET / HTTP/1.1" 200 - 1234`)
	f.Add(`%{msec}t %>s %{ms}T "%{User-Agent}i"`, `1714557600123 503 12 "a \"b\""`)
	f.Fuzz(func(t *testing.T, layoutText, line string) {
		lo, err := parseLayout(layoutText)
		if err != nil {
			return
		}
		d := clfDecoder{lo: lo, given: true, run: "r"}
		var r record.Row
		r.Reset(1)
		_, _ = d.line(&r, []byte(line), nil)
	})
}

func TestCLFDetect(t *testing.T) {
	cases := []struct {
		head string
		want bool
	}{
		{`127.0.0.1 - - [02/Dec/2026:17:23:25 +0300] "GET / HTTP/1.1" 200 3 "-" "curl/8"`, true},
		{`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`, true},
		{`localhost:80 127.0.0.1 - - [02/Dec/2026:09:23:25 -0500] "GET / HTTP/1.1" 200 114 "-" "curl"`, true},
		{`127.0.0.1 - - [02/Dec/2026:17:23:25 +0300] "GET / HTTP/1.1" 200 3 "-" "curl/8" 0.004 -`, true},
		{`127.0.0.1 - - [yesterday] "GET / HTTP/1.1" 200 3`, false},
		{`127.0.0.1 - - [02/Dec/2026:17:23:25 +0300] "GET / HTTP/1.1" OK 3`, false},
		{`{"status":200}`, false},
		{`run,outcome`, false},
	}
	for _, c := range cases {
		if got := detectCLF("access.log", []byte(c.head)); got != c.want {
			t.Errorf("detectCLF(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

func TestParseLayout(t *testing.T) {
	// What each layout reads from a line: field=value for the fields that
	// become columns.
	cases := []struct{ layout, line, want string }{
		{`log_format timed '$remote_addr [$time_local] '
		                   '"$request" $status $request_time';`, `1.2.3.4 [01/May/2024:10:00:00 +0000] "GET / HTTP/1.1" 200 0.004`,
			"ts=09:59:59.996000 latency=4 status=200"},
		{`LogFormat "%h %t \"%r\" %>s %D" timed`, `1.2.3.4 [01/May/2024:10:00:00 +0000] "GET / HTTP/1.1" 200 4001`,
			"ts=10:00:00.000000 latency=4.001 status=200"},
		{`CustomLog ${APACHE_LOG_DIR}/x.log "%{end:%Y-%m-%dT%H:%M:%S}t.%{usec_frac}t %>s %{us}T"`, `2024-05-01T10:00:00.250000 200 1500`,
			"ts=10:00:00.248500 latency=1.5 status=200"},
		{`%{msec}t %>s %{ms}T %{X-Request-ID}i`, `1714557600123 200 7 abc`, "ts=10:00:00.123000 latency=7 status=200 req=abc"},
		{`$time_iso8601 ${status} $upstream_response_time $request_time`, `2024-05-01T13:00:00+03:00 502 0.001, 0.002 : 0.003 1.000`,
			"ts=09:59:59.000000 latency=1000 status=502"},
	}
	for _, c := range cases {
		lo, err := parseLayout(c.layout)
		if err != nil {
			t.Errorf("parseLayout(%q): %v", c.layout, err)
			continue
		}
		d := clfDecoder{lo: lo, given: true, run: "r"}
		var r record.Row
		r.Reset(1)
		if _, err := d.line(&r, []byte(c.line), nil); err != nil {
			t.Errorf("%q reading %q: %v", c.layout, c.line, err)
			continue
		}
		if got := describeRow(&r); got != c.want {
			t.Errorf("%q reading %q:\n got %s\nwant %s", c.layout, c.line, got, c.want)
		}
	}
}

func TestParseLayoutErrors(t *testing.T) {
	cases := map[string]string{
		`$status$request_time`:          "fields status and request_time have no text between them",
		`%h %t %{%Y}t`:                  "time_local and time both give the request's time",
		`%h %J`:                         "%J is not an Apache LogFormat directive",
		`%{%Y-%Q}t %>s`:                 "%Q is not a conversion rewind reads",
		`just text`:                     "want an nginx log_format",
		`$remote_addr %h`:               "want an nginx log_format",
		`%{msec_frac}t %>s`:             "a fraction of a second needs the time before it",
		`%{%H:%M:%S}t %{msec_frac}t %s`: "a fraction of a second must follow a '.'",
		`%{x}T`:                         "%{x}T: want s, ms or us",
	}
	for layoutText, want := range cases {
		_, err := parseLayout(layoutText)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseLayout(%q) = %v, want an error with %q", layoutText, err, want)
		}
	}
}

func describeRow(r *record.Row) string {
	var parts []string
	if r.Is(record.ColTsUs) {
		parts = append(parts, "ts="+usClock(r.TsUs))
	}
	if r.Is(record.ColLatency) {
		parts = append(parts, "latency="+trimFloat(r.Latency))
	}
	if r.Is(record.ColStatus) {
		parts = append(parts, "status="+itoa(int64(r.Status)))
	}
	if r.Is(record.ColReqText) {
		parts = append(parts, "req="+r.ReqText)
	}
	return strings.Join(parts, " ")
}

func usClock(us int64) string    { return time.UnixMicro(us).UTC().Format("15:04:05.000000") }
func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
func itoa(n int64) string        { return strconv.FormatInt(n, 10) }

// TestTrailerShapesMatchRegexps holds the hand-written matchers of a CLF
// trailer to the regexps they replaced, over every string of up to 5
// bytes from an alphabet of the bytes that matter, and upstreamList to
// its strings.FieldsFunc form.
func TestTrailerShapesMatchRegexps(t *testing.T) {
	res := map[string]*regexp.Regexp{
		"nginxSeconds": regexp.MustCompile(`^[0-9]+\.[0-9]{3}$`),
		"traefikMs":    regexp.MustCompile(`^[0-9]+ms$`),
		"wholeNumber":  regexp.MustCompile(`^[0-9]+$`),
		"decimal":      regexp.MustCompile(`^[0-9]*\.[0-9]+$`),
	}
	funcs := map[string]func([]byte) bool{"nginxSeconds": nginxSeconds, "traefikMs": traefikMs, "wholeNumber": wholeNumber, "decimal": decimal}
	key := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	upstream := func(v []byte) bool {
		for _, part := range strings.FieldsFunc(string(v), func(r rune) bool { return r == ',' || r == ':' || r == ' ' }) {
			if part != "-" && !res["decimal"].MatchString(part) {
				return false
			}
		}
		return true
	}
	alphabet := []byte("09.msaZ_=-,: \xc3")
	var walk func(v []byte)
	n := 0
	walk = func(v []byte) {
		n++
		for name, re := range res {
			if got, want := funcs[name](v), re.Match(v); got != want {
				t.Fatalf("%s(%q) = %v, the regexp says %v", name, v, got, want)
			}
		}
		if got, want := trailerKey(v), len(key.Find(v)); got != want {
			t.Fatalf("trailerKey(%q) = %d, the regexp says %d", v, got, want)
		}
		if got, want := upstreamList(v), upstream(v); got != want {
			t.Fatalf("upstreamList(%q) = %v, FieldsFunc says %v", v, got, want)
		}
		if len(v) < 5 {
			for _, b := range alphabet {
				walk(append(v[:len(v):len(v)], b))
			}
		}
	}
	walk(nil)
	for _, v := range []string{"0.001, 0.003 : 0.002", "123.456", "12ms", "rt=0.004", "request_time=1", "0.000, -", "1.5e3"} {
		walk([]byte(v))
	}
	if n < 500000 {
		t.Fatalf("walked %d strings", n)
	}
}
