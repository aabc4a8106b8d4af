package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest/format/haproxy"
)

func FuzzHAProxy(f *testing.F) { fuzzFormat(f, haproxy.Name, "testdata/real/haproxy/*/input*") }

func TestHAProxyDetect(t *testing.T) {
	cases := []struct {
		head string
		want bool
	}{
		{`127.0.0.1:35502 [02/Dec/2026:14:24:22.550] web app/s1 0/0/0/1/1 200 120 - - ---- 1/1/0/0/0 0/0 "GET / HTTP/1.1"`, true},
		{"Proxy web started.\nServer b/s is DOWN, reason: x\n10.0.0.1:1 [02/Dec/2026:14:24:22.550] web app/s1 0/0/0/1/1 200 1 - - ---- 1/1/0/0/0 0/0 \"GET / HTTP/1.1\"\n", true},
		{"<134>1 2026-12-02T14:24:22.552765+00:00 - haproxy 1 - - 127.0.0.1:1 [02/Dec/2026:14:24:22.550] web app/s1 0/0/0/1/1 200 1 - - ---- 1/1/0/0/0 0/0 \"GET / HTTP/1.1\"", true},
		{"<129>Dec  2 14:24:21 localhost haproxy[1]: anything\n<134>Dec  2 14:24:22 localhost haproxy[1]: 127.0.0.1:1 [02/Dec/2026:14:24:22.550] web app/s1 0/0/0/1/1 200 1 - - ---- 1/1/0/0/0 0/0 \"GET / HTTP/1.1\"", true},
		{"Proxy web started.\n", false},                                              // notices alone: name it with --from
		{`127.0.0.1 - - [02/Dec/2026:14:24:22 +0000] "GET / HTTP/1.1" 200 5`, false}, // nginx combined
		{"run,latency_ms\na,1\n", false},
	}
	for _, c := range cases {
		if got := (haproxy.Format{}).Detect("haproxy.log", []byte(c.head)); got != c.want {
			t.Errorf("detectHaproxy(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

// An RFC 5424 prefix gives the local dates their offset; without one they
// are read as UTC and the ingest warns.
func TestHAProxyZone(t *testing.T) {
	db, _ := openDB(t)
	line := `127.0.0.1:1 [02/Dec/2026:14:24:22.550] web app/s1 0/0/0/1/7 200 1 - - ---- 1/1/0/0/0 0/0 "GET / HTTP/1.1"`
	res := mustIngest(t, db, Options{}, writeFile(t, "a.log", "<134>1 2026-12-02T14:24:22.600+02:00 lb haproxy 9 - - "+line+"\n"),
		writeFile(t, "b.log", line+"\n"))
	got := queryStrings(t, db, `SELECT run || ' ' || strftime(ts, '%Y-%m-%dT%H:%M:%S.%f') || ' ' || latency_ms FROM requests ORDER BY run`)
	want := []string{"a 2026-12-02T12:24:22.550000 7.0", "b 2026-12-02T14:24:22.550000 7.0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(res[0].Warnings) != 0 || len(res[1].Warnings) != 1 {
		t.Errorf("warnings %q and %q, want none and one", res[0].Warnings, res[1].Warnings)
	}
	if res[1].ResolutionMs != 0 || res[0].Format != haproxy.Name {
		t.Errorf("resolution %v format %q", res[1].ResolutionMs, res[0].Format)
	}
}

// The notices of one file are bounded: lines of HAProxy's syslog tag that
// are not requests stop the ingest past 64 MiB of text.
func TestHAProxyNoticeBound(t *testing.T) {
	var b strings.Builder
	for range 3 {
		b.WriteString("<129>Dec  2 14:24:21 localhost haproxy[1]: ")
		b.WriteString(strings.Repeat("x", 30<<20))
		b.WriteString("\n")
	}
	db, _ := openDB(t)
	path := writeFile(t, "h.log", b.String())
	_, err := Files(context.Background(), db, Options{From: haproxy.Name}, []string{path})
	if err == nil || err.Error() != path+":3: the notices (lines that are not requests) pass 64 MiB: not an HAProxy log" {
		t.Errorf("error %v", err)
	}
}

func TestHAProxyErrors(t *testing.T) {
	pre := `127.0.0.1:1 [02/Dec/2026:14:24:22.550] web `
	ok := pre + `app/s1 0/0/0/1/1 200 120 - - ---- 1/1/0/0/0 0/0 "GET / HTTP/1.1"` + "\n"
	checkErrors(t, haproxy.Name, "haproxy.log", map[string]errorCase{
		"bad-timer":    {ok + pre + `app/s1 0/0/x/1/1 200 120 - - ---- 1/1/0/0/0 0/0 ""`, `:2: field "Tc": want milliseconds (an integer, -1 when not reached), got "x"`},
		"bad-status":   {ok + ok + pre + `app/s1 0/0/0/1/1 2xx 120 - - ---- 1/1/0/0/0 0/0 ""`, `:3: field "status_code": want an HTTP status code, got "2xx"`},
		"four-timers":  {pre + `app/s1 0/0/1/1 200 120 - - ---- 1/1/0/0/0 0/0 ""`, `:1: field "timers": want TR/Tw/Tc/Tr/Ta (httplog) or Tw/Tc/Tt (tcplog), got "0/0/1/1"`},
		"bad-conns":    {pre + `app/s1 0/0/0/1/1 200 120 - - ---- 1/1/0/0 0/0 ""`, `:1: field "actconn/feconn/beconn/srv_conn/retries": want 5 counts separated by /, got "1/1/0/0"`},
		"bad-queue":    {pre + `app/s1 0/0/0/1/1 200 120 - - ---- 1/1/0/0/0 0/x ""`, `:1: field "backend_queue": want a count, got "x"`},
		"bad-bytes":    {pre + `app/s1 0/0/0/1/1 200 12k - - ---- 1/1/0/0/0 0/0 ""`, `:1: field "bytes_read": want a byte count, got "12k"`},
		"no-server":    {pre + `app 0/0/0/1/1 200 1 - - ---- 1/1/0/0/0 0/0 ""`, `:1: field "backend_name/server_name": want backend/server, got "app"`},
		"short":        {ok + pre + `app/s1`, `:2: want frontend_name, backend_name/server_name and timers after the date, got "web app/s1"`},
		"short-tail":   {pre + `app/s1 0/0/0/1/1 200 120 -`, `:1: want status_code, bytes_read, cookies, termination_state, connections and queues after the timers, got "200 120 -"`},
		"bad-tcp-time": {pre + `app/s1 0/x/1 117 -- 1/1/0/0/0 0/0`, `:1: field "Tc": want milliseconds`},
		// lines that are neither requests nor HAProxy's notices are refused,
		// not held as events; notices' times are held to 1900-2199
		"garbage":     {ok + "garbage " + strings.Repeat("x", 100) + "\n" + ok, `:2: not an HAProxy request or notice: "garbage xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…"`},
		"notice-0001": {ok + "<134>1 0001-01-02T00:00:00Z lb haproxy 9 - - Proxy web started.\n", `:2: field "timestamp": time 0001-01-02T00:00:00Z is out of range (want the years 1900 to 2199)`},
		"notice-9999": {"<134>1 9999-12-31T23:59:59Z lb haproxy 9 - - Server app/s1 is DOWN\n" + ok, `:1: field "timestamp": time 9999-12-31T23:59:59Z is out of range (want the years 1900 to 2199)`},
		"tcp-9999":    {`127.0.0.1:1 [02/Dec/9999:14:24:22.550] web app/s1 0/1/1 117 -- 1/1/0/0/0 0/0`, `:1: field "date": time 9999-12-02T14:24:22.55Z is out of range (want the years 1900 to 2199)`},
	})
}
