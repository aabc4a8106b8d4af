package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest/format/access"
)

func FuzzAccess(f *testing.F) { fuzzFormat(f, access.Name, "testdata/real/access/*/input*") }

func TestAccessDetect(t *testing.T) {
	cases := []struct {
		head string
		want bool
	}{
		{`{"response_code":200,"duration":3}`, true},
		{`{"start_time":"2020-09-30T03:22:42.267Z","response_code":"200"}`, true},
		{`{"request_time":"0.010","status":"200"}`, true},
		{`{"time_local":"05/Jun/2020:17:20:35 +0000","status":"302"}`, true},
		{"\xef\xbb\xbf{\"request_time\":0.1,\"remote_addr\":\"1.2.3.4\"}\n{", true},
		{`{"response_code":200}`, false},
		{`{"run":"a","status":200,"latency_ms":3}`, false}, // a canonical record
		{`{"request_time":0.1}`, false},
		{`[{"response_code":200,"duration":3}]`, false},
		{`{"response_code":200,"duration":3`, false}, // not JSON
	}
	for _, c := range cases {
		if got := (access.Format{}).Detect("access.log", []byte(c.head)); got != c.want {
			t.Errorf("detectAccess(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

// Sub-millisecond latencies stay exact, nginx times move to the request's
// start, numbers may be strings, and "-" is no value.
func TestAccessValues(t *testing.T) {
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, writeFile(t, "front.log", `{"msec":"1714557600.123","request_time":"0.0005","status":"200","request_id":"-"}
{"time_iso8601":"2024-05-01T10:00:01+02:00","request_time":0.25,"status":503,"request":"PUT /x HTTP/2.0"}
{"start_time":"2024-05-01T08:00:02.5Z","duration":"0","response_code":"0","response_flags":"DC","x-request-id":"r-1"}
{"time_local":"01/May/2024:08:00:03 +0000","request_time":"-","status":"-","response_code":404}
`))
	got := queryStrings(t, db, `SELECT run || ' ' || strftime(ts, '%H:%M:%S.%f') || ' ' || coalesce(latency_ms::VARCHAR, '-') || ' ' ||
		coalesce(status::VARCHAR, '-') || ' ' || outcome || ' ' || coalesce(req_text, '-') || ' ' || coalesce(attrs->>'method', '-') FROM requests ORDER BY seq`)
	want := []string{
		"front 10:00:00.122500 0.5 200 ok - -",
		"front 08:00:00.750000 250.0 503 error - PUT",
		"front 08:00:02.500000 0.0 0 error r-1 -",
		"front 08:00:03.000000 - 404 error - -",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAccessErrors(t *testing.T) {
	ok := `{"request_time":"0.010","status":"200"}` + "\n"
	cases := map[string]struct{ in, want string }{
		"bad-request-time": {ok + `{"request_time":"fast","status":"200"}`, `:2: field "request_time": not a number "fast"`},
		"bad-duration":     {`{"response_code":200,"duration":"1ms"}`, `:1: field "duration": not a number "1ms"`},
		"bad-status":       {ok + ok + `{"request_time":"0.1","status":"2xx"}`, `:3: field "status": want an HTTP status code, got "2xx"`},
		"status-range":     {`{"response_code":1000,"duration":1}`, `:1: field "response_code": want an HTTP status code, got "1000"`},
		"bad-time-local": {ok + `{"time_local":"yesterday","request_time":"0.1","status":"200"}`,
			`:2: field "time_local": want a time such as 2024-05-01T10:00:00+00:00 or 01/May/2024:10:00:00 +0000, got "yesterday"`},
		"bad-start-time": {`{"start_time":"2024-05-01 10:00","response_code":200,"duration":1}`,
			`:1: field "start_time": want an RFC 3339 time such as 2024-05-01T10:00:00.123Z, got "2024-05-01 10:00"`},
		"object-status": {`{"request_time":"0.1","status":{"code":200}}`, `:1: field "status": want a number or a string, got object {"code":200}`},
		"not-json":      {ok + "\n" + `127.0.0.1 - - [01/May/2024] "GET /"`, `:3: want a JSON object per line (a JSON access log), got "127.0.0.1 - - [01/Ma…"`},
		"bad-json":      {ok + `{"request_time":"0.1",`, `:2: bad JSON: `},
		"no-status":     {`{"request_time":"0.1","remote_addr":"1.2.3.4"}`, `:1: field "outcome": missing (and no status to derive it from)`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			db, _ := openDB(t)
			mustIngest(t, db, Options{}, chaosFixture)
			before := snapshot(t, db)
			path := writeFile(t, "access.log", c.in)
			_, err := Files(context.Background(), db, Options{From: access.Name}, []string{path})
			if err == nil || !strings.HasPrefix(err.Error(), path+c.want) {
				t.Errorf("error %v, want %s%s", err, path, c.want)
			}
			if snapshot(t, db) != before {
				t.Error("a failed ingest changed the database")
			}
		})
	}
}
