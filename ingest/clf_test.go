package ingest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rewind-dev/rewind/ingest/format/access"
	"github.com/rewind-dev/rewind/ingest/format/caddy"
	"github.com/rewind-dev/rewind/ingest/format/clf"
)

func FuzzCLF(f *testing.F)   { fuzzFormat(f, clf.Name, "testdata/real/clf/*/input*") }
func FuzzCaddy(f *testing.F) { fuzzFormat(f, caddy.Name, "testdata/real/caddy/*/input*") }
func FuzzSquid(f *testing.F) { fuzzFormat(f, clf.SquidName, "testdata/real/squid/native/input*") }
func FuzzTrafficServer(f *testing.F) {
	fuzzFormat(f, clf.TrafficServerName, "testdata/real/trafficserver/squid/input*")
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
			opts := Options{From: clf.Name, LogFormat: c.logFormat}
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

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
