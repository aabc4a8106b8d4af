package ingest

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rewind-dev/rewind/ingest/format/access"
	"github.com/rewind-dev/rewind/ingest/format/caddy"
	"github.com/rewind-dev/rewind/ingest/record"
)

func FuzzCLF(f *testing.F)   { fuzzFormat(f, FormatCLF, "testdata/real/clf/*/input*") }
func FuzzCaddy(f *testing.F) { fuzzFormat(f, caddy.Name, "testdata/real/caddy/*/input*") }

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

// Each server's times come out as the request's start: nginx's end less
// $request_time, Apache's and Traefik's as written; zones are exact; the
// upstream list, quoted quotes and "-" read as the server meant them.
func TestCLFValues(t *testing.T) {
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, writeFile(t, "front.log", `1.2.3.4 - - [01/May/2024:13:00:00 +0300] "GET /a?q=\x22x\x22 HTTP/1.1" 200 3 "-" "ua \x22q\x22" 0.250 0.001, 0.002 : 0.003
1.2.3.4 - bob [01/May/2024:10:00:01 +0000] "\x16\x03\x01" 400 0 "-" "-" 0.000 -
1.2.3.4 - - [01/May/2024:06:00:02 -0400] "POST /b HTTP/2.0" 503 - "http://r/" "-" 1.005 "0.999"
`))
	mustIngest(t, db, Options{}, writeFile(t, "traefik.log", `10.0.0.1 - - [01/May/2024:10:00:00 +0000] "GET /t HTTP/1.1" 200 5 "-" "-" 7 "web@docker" "http://10.0.0.2:80" 12ms
`))
	got := queryStrings(t, db, `SELECT run || ' ' || strftime(ts, '%H:%M:%S.%f') || ' ' || coalesce(latency_ms::VARCHAR, '-') || ' ' ||
		status || ' ' || coalesce(attrs->>'path', attrs->>'request') || ' ' || coalesce(attrs->>'http_user_agent', '-') || ' ' ||
		coalesce(attrs->>'upstream_response_time', attrs->>'extra_1', attrs->>'router_name', '-') FROM requests ORDER BY seq`)
	want := []string{
		`front 09:59:59.750000 250.0 200 /a?q="x" ua "q" 0.001, 0.002 : 0.003`,
		`front 10:00:01.000000 0.0 400 \x16\x03\x01 - -`,
		`front 10:00:00.995000 1005.0 503 /b - 0.999`,
		`traefik 10:00:00.000000 12.0 200 /t - web@docker`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A time logged in whole seconds keeps the file at 1000 ms even where the
// rows' start times look finer; a layout with ms keeps 1 ms.
func TestCLFResolution(t *testing.T) {
	db, _ := openDB(t)
	for _, dir := range []string{"nginx-timed-upstream-list", "apache-msec-frac-log-format", "nginx-msec-log-format", "apache-combined"} {
		var opts Options
		if lf := readIfExists(t, "testdata/real/clf/"+dir+"/log-format.txt"); lf != "" {
			opts.LogFormat = strings.TrimSpace(lf)
		}
		opts.Experiment = dir
		mustIngest(t, db, opts, "testdata/real/clf/"+dir+"/input.log")
	}
	got := queryStrings(t, db, `SELECT experiment || ' ' || resolution_ms FROM files ORDER BY file_id`)
	want := []string{"nginx-timed-upstream-list 1000.0", "apache-msec-frac-log-format 1.0", "nginx-msec-log-format 1.0", "apache-combined 1000.0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCLFErrors(t *testing.T) {
	ok := `1.2.3.4 - - [01/May/2024:10:00:00 +0000] "GET / HTTP/1.1" 200 3 "-" "curl" 0.004 0.003` + "\n"
	cases := map[string]struct{ in, logFormat, want string }{
		"apache-D-unknown-unit": {in: `1.2.3.4 - - [01/May/2024:10:00:00 +0000] "GET / HTTP/1.1" 200 3 "-" "curl" 3398`,
			want: `:1: field "trailing field 1": 3398 is a whole number of unknown unit: Apache's %D (µs), %{ms}T (ms) and %T (s) all write one. ` +
				`Give the server's LogFormat with --log-format, e.g. --log-format '%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i" %D'`},
		"decimal-unknown-unit": {in: ok + `1.2.3.4 - - [01/May/2024:10:00:00 +0000] "GET / HTTP/1.1" 200 3 "-" "curl" 0.5`,
			want: `:2: field "trailing field 1": "0.5" has no known unit`},
		"bad-time":              {in: ok + `1.2.3.4 - - [01/May/2024:10:00:99 +0000] "GET / HTTP/1.1" 200 3 "-" "-"`, want: `:2: field "time_local": want a time like "01/May/2024:10:00:00 +0000"`},
		"bad-status":            {in: ok + `1.2.3.4 - - [01/May/2024:10:00:00 +0000] "GET / HTTP/1.1" 2000 3 "-" "-"`, want: `:2: field "status": want an HTTP status code, got "2000"`},
		"no-closing-quote":      {in: ok + `1.2.3.4 - - [01/May/2024:10:00:00 +0000] "GET / HTTP/1.1`, want: `:2: field "request": no closing quote`},
		"other-layout":          {in: ok + `garbage`, want: `:2: field "remote_addr": want " " after it, got "garbage"`},
		"common-after-combined": {in: ok + `1.2.3.4 - - [01/May/2024:10:00:00 +0000] "GET / HTTP/1.1" 200 3`, want: `:2: field "body_bytes_sent": want " \"" after it, got "3"`},
		"bad-request-time": {in: `1.2.3.4 - - [01/May/2024:10:00:00 +0000] "GET / HTTP/1.1" 200 3 "-" "-" rt=fast`,
			want: `:1: field "request_time": want a number of seconds, got "fast"`},
		"layout-rest":       {in: `[200] extra`, logFormat: `[$status]`, want: `:1: the line goes on after the log format's last field: " extra"`},
		"layout-last-field": {in: `200 0.004 extra`, logFormat: `$status $request_time`, want: `:1: field "request_time": want a number of seconds, got "0.004 extra"`},
		"layout-mismatch":   {in: `200 0.004`, logFormat: `$status [$request_time]`, want: `:1: field "status": want " [" after it, got "200 0.004"`},
		"layout-literal":    {in: `x200`, logFormat: `[$status]`, want: `:1: does not match the log format at column 1 (after the line's start): want "[", got "x200"`},
		"layout-D-fraction": {in: `200 1.5`, logFormat: `%>s %D`, want: `:1: field "request_time_us": want a whole number of µs, got "1.5"`},
		"layout-negative":   {in: `200 -3`, logFormat: `%>s %{ms}T`, want: `:1: field "request_time_ms": want a whole number of ms, got "-3"`},
		"layout-epoch":      {in: `x 200`, logFormat: `$msec $status`, want: `:1: field "msec": want a number of seconds since the epoch, got "x"`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			db, _ := openDB(t)
			mustIngest(t, db, Options{}, chaosFixture)
			before := snapshot(t, db)
			path := writeFile(t, "access.log", c.in)
			opts := Options{From: FormatCLF, LogFormat: c.logFormat}
			_, err := Files(context.Background(), db, opts, []string{path})
			if err == nil || !strings.HasPrefix(flagged(err), path+c.want) {
				t.Errorf("error %v, want %s%s", err, path, c.want)
			}
			if snapshot(t, db) != before {
				t.Error("a failed ingest changed the database")
			}
		})
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

// Caddy's float seconds come out exact to the µs, its end time moves to the
// start, and other loggers' entries become events.
func TestCaddyValues(t *testing.T) {
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, writeFile(t, "caddy.log", `{"level":"info","ts":1714557600.5000004,"logger":"http.log.access.log0","msg":"handled request","request":{"method":"GET","uri":"/a","host":"h"},"duration":0.25,"status":200}
{"level":"info","ts":1714557601.25,"logger":"http.handlers.reverse_proxy","msg":"selected upstream"}
{"level":"error","ts":"2024-05-01T10:00:02.5Z","logger":"http.log.access.log0","msg":"handled request","request":{"method":"POST","uri":"/b"},"duration":"1.5ms","status":502}
`))
	got := queryStrings(t, db, `SELECT strftime(ts, '%H:%M:%S.%f') || ' ' || latency_ms || ' ' || status || ' ' || (attrs->>'method') || ' ' || (attrs->>'path') FROM requests ORDER BY seq`)
	want := []string{"10:00:00.250000 250.0 200 GET /a", "10:00:02.498500 1.5 502 POST /b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var events string
	if err := db.QueryRow(`SELECT type || ' ' || subject || ' ' || state || ' ' || strftime(ts, '%H:%M:%S.%f') FROM events`).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if want := "caddy.log http.handlers.reverse_proxy selected upstream 10:00:01.250000"; events != want {
		t.Errorf("event %q, want %q", events, want)
	}
}

func TestCaddyErrors(t *testing.T) {
	ok := `{"ts":1714557600.5,"logger":"http.log.access","msg":"handled request","request":{},"duration":0.1,"status":200}` + "\n"
	cases := map[string]struct{ in, from, want string }{
		"whole-duration":       {in: ok + `{"ts":1714557600.5,"request":{},"duration":16182499,"status":200}`, want: `:2: field "duration": 16182499 is a whole number`},
		"bad-ts":               {in: ok + `{"ts":"yesterday","request":{},"duration":0.1,"status":200}`, want: `:2: field "ts": want float seconds since the epoch or an RFC 3339 time`},
		"no-ts":                {in: ok + `{"request":{},"duration":0.1,"status":200}`, want: `:2: field "ts": missing`},
		"bad-status":           {in: ok + `{"ts":1.5,"request":{},"duration":0.1,"status":"200"}`, want: `:2: field "status": want an HTTP status code, got "200"`},
		"bad-request":          {in: ok + `{"ts":1.5,"request":"GET /","duration":0.1,"status":200}`, want: `:2: field "request": want an object`},
		"access-refuses-caddy": {in: ok, from: access.Name, want: `:1: field "duration": unit unknown: Envoy writes ms (with response_code), Caddy seconds (use --from caddy)`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			db, _ := openDB(t)
			mustIngest(t, db, Options{}, chaosFixture)
			before := snapshot(t, db)
			path := writeFile(t, "caddy.log", c.in)
			from := c.from
			if from == "" {
				from = caddy.Name
			}
			_, err := Files(context.Background(), db, Options{From: from}, []string{path})
			if err == nil || !strings.HasPrefix(flagged(err), path+c.want) {
				t.Errorf("error %v, want %s%s", err, path, c.want)
			}
			if snapshot(t, db) != before {
				t.Error("a failed ingest changed the database")
			}
		})
	}
}

func readIfExists(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func usClock(us int64) string    { return time.UnixMicro(us).UTC().Format("15:04:05.000000") }
func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
func itoa(n int64) string        { return strconv.FormatInt(n, 10) }

// A log of several 4 MiB chunks loads every line in file order, and a bad
// line deep in it is named by its own line number.
func TestCLFAcrossChunks(t *testing.T) {
	var sb strings.Builder
	const n = 40000
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, `10.0.0.%d - - [01/May/2024:10:%02d:%02d +0000] "GET /items/%d HTTP/1.1" 200 %d "-" "%s" 0.%03d -`+"\n",
			i%250, i/60%60, i%60, i, i, strings.Repeat("u", 100), i%1000)
	}
	good := sb.String()
	db, _ := openDB(t)
	res := mustIngest(t, db, Options{}, writeFile(t, "big.log", good))
	if res[0].Rows != n {
		t.Fatalf("%d rows, want %d", res[0].Rows, n)
	}
	var bad int64
	if err := db.QueryRow(`SELECT count(*) FILTER (WHERE line <> req + 1 OR (attrs->>'path') <> ('/items/' || line) OR seq - (SELECT min(seq) FROM requests) <> req) FROM requests`).Scan(&bad); err != nil || bad != 0 {
		t.Errorf("%d rows out of file order (%v)", bad, err)
	}
	lines := strings.SplitAfter(good, "\n")
	lines[33332] = strings.Replace(lines[33332], "] \"GET", "] GET", 1)
	before := snapshot(t, db)
	path := writeFile(t, "bad.log", strings.Join(lines, ""))
	_, err := Files(context.Background(), db, Options{}, []string{path})
	if want := path + `:33333: field "time_local": want "] \"" after it`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want %s", err, want)
	}
	if snapshot(t, db) != before {
		t.Error("a failed ingest changed the database")
	}
}

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
