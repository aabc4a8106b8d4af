package ingest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/ingest/format/k6"

	"github.com/google/go-cmp/cmp"
)

// k6Expect is what a k6 JSON file says about its requests, computed with
// encoding/json and none of the adapter's code.
type k6Expect struct {
	rows                  []string // per http_req_duration point, in file order
	waitingSum, checksSum float64
	events                int
}

func k6Independent(t *testing.T, path string) k6Expect {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var e k6Expect
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			Type, Metric string
			Data         struct {
				Time  time.Time
				Value float64
				Tags  map[string]string
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		d := rec.Data
		switch {
		case rec.Type == "Metric":
			e.events++
		case rec.Metric == "http_req_duration":
			outcome := map[string]string{"true": "ok", "false": "error"}[d.Tags["expected_response"]]
			send := d.Time.Add(-time.Duration(math.Round(d.Value * 1e6))).UnixMicro()
			e.rows = append(e.rows, fmt.Sprintf("%.6f %s %s %d", d.Value, d.Tags["status"], outcome, send))
		case rec.Metric == "http_req_waiting":
			e.waitingSum += d.Value
		case !strings.HasPrefix(rec.Metric, "http_req"):
			e.events++
			if rec.Metric == "checks" {
				e.checksSum += d.Value
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestK6AgainstFile holds each real k6 JSON file's rows to what the file
// says, recomputed independently: one row per http_req_duration point, in
// file order, with its value, status, expected_response and send time, its
// request's http_req_waiting in attrs, every other point an event.
func TestK6AgainstFile(t *testing.T) {
	paths, _ := filepath.Glob("testdata/real/k6/*/input.json")
	if len(paths) == 0 {
		t.Fatal("no k6 files")
	}
	for _, p := range paths {
		t.Run(filepath.Base(filepath.Dir(p)), func(t *testing.T) {
			want := k6Independent(t, p)
			db, _ := openDB(t)
			mustIngest(t, db, Options{}, p)
			rows := queryStrings(t, db, `SELECT printf('%.6f', latency_ms) || ' ' || status || ' ' || outcome || ' ' || epoch_us(ts)
				FROM requests ORDER BY seq`)
			if diff := cmp.Diff(want.rows, rows); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			sums := queryStrings(t, db, `SELECT printf('%.6f %.6f %d',
				(SELECT sum((attrs->>'waiting_ms')::DOUBLE) FROM requests),
				(SELECT coalesce(sum(state::DOUBLE), 0) FROM events WHERE type = 'k6_point' AND subject = 'checks'),
				(SELECT count(*) FROM events))`)
			wantSums := fmt.Sprintf("%.6f %.6f %d", want.waitingSum, want.checksSum, want.events)
			if sums[0] != wantSums {
				t.Errorf("waiting_ms sum, checks sum, events: got %s, want %s", sums[0], wantSums)
			}
		})
	}
}

const k6T1 = `"2024-01-02T03:04:05.123456789Z"`

// k6File writes lines to a file, T1 standing for one time.
func k6File(t *testing.T, name string, lines ...string) string {
	t.Helper()
	return writeFile(t, name, strings.ReplaceAll(strings.Join(lines, "\n"), "T1", k6T1)+"\n")
}

// TestK6Grouping checks how points become requests: before and after the
// duration point, across Metric records, with unordered tags, two requests
// with the same time and tags, a point without its duration, and the
// outcome from expected_response, else http_req_failed, else the status.
func TestK6Grouping(t *testing.T) {
	path := k6File(t, "run.json",
		`{"type":"Metric","data":{"name":"http_reqs","type":"counter","contains":"default"},"metric":"http_reqs"}`,
		`{"type":"Point","metric":"http_reqs","data":{"time":T1,"value":1,"tags":{"status":"200","scenario":"s1","url":"u","blocked_ms":"tag"}}}`,
		`{"type":"Point","metric":"http_req_blocked","data":{"time":T1,"value":2.5,"tags":{"url":"u","blocked_ms":"tag","scenario":"s1","status":"200"}}}`,
		`{"type":"Metric","data":{"name":"http_req_duration","type":"trend","contains":"time","thresholds":["p(95)<500"]},"metric":"http_req_duration"}`,
		`{"type":"Point","metric":"http_req_duration","data":{"time":T1,"value":10.5,"tags":{"status":"200","scenario":"s1","url":"u","blocked_ms":"tag"}}}`,
		`{"type":"Point","metric":"http_req_failed","data":{"time":T1,"value":1,"tags":{"status":"200","scenario":"s1","url":"u","blocked_ms":"tag"}}}`,
		`{"type":"Point","metric":"http_reqs","data":{"time":T1,"value":1,"tags":{"status":"200","scenario":"s1","url":"u","blocked_ms":"tag"}}}`,
		`{"type":"Point","metric":"http_req_duration","data":{"time":T1,"value":3,"tags":{"status":"200","scenario":"s1","url":"u","blocked_ms":"tag"}}}`,
		`{"type":"Point","metric":"http_req_waiting","data":{"time":"2024-01-02T03:04:06Z","value":1,"tags":{"scenario":"s1"}}}`,
		`{"metric":"checks","type":"Point","data":{"time":"2024-01-02T03:04:06.5Z","value":0,"tags":{"check":"is 200"}}}`,
		``,
		`{"metric":"http_req_duration","type":"Point","data":{"time":"2024-01-02T03:04:07+02:00","value":0,"tags":{"status":"0","expected_response":"false","error":"dial: i/o timeout","error_code":"1211","scenario":"s2"},"metadata":{"trace_id":"abc","error":"meta"}}}`,
	)
	db, _ := openDB(t)
	res := mustIngest(t, db, Options{}, path)
	if res[0].Format != k6.Name || res[0].Rows != 3 || res[0].Events != 4 {
		t.Fatalf("result %+v: want format k6, 3 rows, 4 events", res[0])
	}
	got := queryStrings(t, db, `SELECT concat_ws(' | ', line, run, latency_ms, outcome, status, strftime(ts, '%H:%M:%S.%f'), attrs) FROM requests ORDER BY seq`)
	want := []string{
		`5 | s1 | 10.5 | error | 200 | 03:04:05.112956 | {"blocked_ms":"tag","failed":1,"k6_blocked_ms":2.5,"scenario":"s1","time":"2024-01-02T03:04:05.123456789Z","url":"u"}`,
		`8 | s1 | 3.0 | ok | 200 | 03:04:05.120456 | {"blocked_ms":"tag","scenario":"s1","time":"2024-01-02T03:04:05.123456789Z","url":"u"}`,
		`12 | s2 | 0.0 | error | 0 | 01:04:07.000000 | {"error":"dial: i/o timeout","error_code":"1211","metadata_error":"meta","scenario":"s2","time":"2024-01-02T03:04:07+02:00","trace_id":"abc"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	got = queryStrings(t, db, `SELECT concat_ws(' | ', line, type, subject, state, strftime(ts, '%H:%M:%S.%f'), attrs) FROM events ORDER BY seq`)
	want = []string{
		`1 | k6_metric | http_reqs | counter | {"contains":"default"}`,
		`4 | k6_metric | http_req_duration | trend | {"contains":"time","thresholds":["p(95)<500"]}`,
		`9 | k6_point | http_req_waiting | 1 | 03:04:06.000000 | {"scenario":"s1"}`,
		`10 | k6_point | checks | 0 | 03:04:06.500000 | {"check":"is 200"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestK6SameTimeOtherTags: points that end together but carry other tags
// or metadata belong to another request.
func TestK6SameTimeOtherTags(t *testing.T) {
	path := k6File(t, "run.json",
		`{"type":"Point","metric":"http_req_duration","data":{"time":T1,"value":1,"tags":{"scenario":"s","url":"a","status":"200"}}}`,
		`{"type":"Point","metric":"http_req_duration","data":{"time":T1,"value":2,"tags":{"scenario":"s","url":"b","status":"200"}}}`,
		`{"type":"Point","metric":"http_req_waiting","data":{"time":T1,"value":0.5,"tags":{"url":"b","scenario":"s","status":"200"}}}`,
		`{"type":"Point","metric":"http_req_waiting","data":{"time":T1,"value":0.25,"tags":{"url":"a","scenario":"s","status":"200"}}}`,
		`{"type":"Point","metric":"http_req_duration","data":{"time":T1,"value":3,"tags":{"url":"a","scenario":"s","status":"200"},"metadata":{"trace_id":"t"}}}`,
		`{"type":"Point","metric":"http_req_failed","data":{"time":T1,"value":0,"tags":{"url":"a","scenario":"s","status":"200"},"metadata":{"trace_id":"t"}}}`)
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, path)
	got := queryStrings(t, db, `SELECT concat_ws(' | ', line, latency_ms, outcome, attrs->>'url', attrs->>'waiting_ms', attrs->>'trace_id') FROM requests ORDER BY seq`)
	want := []string{"1 | 1.0 | ok | a", "2 | 2.0 | ok | b | 0.5", "5 | 3.0 | ok | a | t"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	got = queryStrings(t, db, `SELECT concat_ws(' | ', line, subject, state, attrs) FROM events`)
	if diff := cmp.Diff([]string{`4 | http_req_waiting | 0.25 | {"scenario":"s","status":"200","url":"a"}`}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestK6NoScenario: without a scenario tag (k6 before v0.27) the run comes
// from --run, and a request with no verdict at all gets its outcome from
// the status.
func TestK6NoScenario(t *testing.T) {
	path := k6File(t, "old.json",
		`{"type":"Point","data":{"time":T1,"value":12,"tags":{"status":"503","method":"GET"}},"metric":"http_req_duration"}`,
		`{"type":"Point","data":{"time":T1,"value":12,"tags":null},"metric":"vus"}`)
	db, _ := openDB(t)
	if _, err := Files(context.Background(), db, Options{}, []string{path}); err == nil || !strings.Contains(err.Error(), `old.json:1: field "run": missing`) {
		t.Fatalf("without --run: got %v, want a missing run on line 1", err)
	}
	mustIngest(t, db, Options{Run: "baseline"}, path)
	got := queryStrings(t, db, `SELECT concat_ws(' ', run, outcome, status) FROM requests`)
	if diff := cmp.Diff([]string{"baseline error 503"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestK6SetupTeardown: requests made in setup() and teardown() carry no
// scenario tag, only the group ::setup or ::teardown (::setup::NAME in a
// nested group): they load as runs setup and teardown, also when --run
// names the run of the rest, in the JSON and the CSV alike. A group named
// setup inside a scenario stays in its scenario.
func TestK6SetupTeardown(t *testing.T) {
	point := func(v, tags string) string {
		return `{"type":"Point","metric":"http_req_duration","data":{"time":T1,"value":` + v + `,"tags":{"status":"200",` + tags + `}}}`
	}
	jsonPath := k6File(t, "life.json",
		point("1", `"group":"::setup"`), point("2", `"group":"::setup::login"`),
		point("3", `"group":"","scenario":"s"`), point("4", `"group":"::setup","scenario":"s"`),
		point("5", `"group":"::teardown"`), point("6", `"group":"::setupx"`))
	csvPath := writeFile(t, "life.csv", "metric_name,timestamp,metric_value,group,scenario,status\n"+
		"http_req_duration,1735732800,1.000000,::setup,,200\n"+
		"http_req_duration,1735732801,2.000000,::setup::login,,200\n"+
		"http_req_duration,1735732802,3.000000,,s,200\n"+
		"http_req_duration,1735732803,4.000000,::setup,s,200\n"+
		"http_req_duration,1735732804,5.000000,::teardown,,200\n"+
		"http_req_duration,1735732805,6.000000,::setupx,,200\n")
	want := []string{"setup 1.0", "setup 2.0", "s 3.0", "s 4.0", "teardown 5.0", "r 6.0"}
	for _, path := range []string{jsonPath, csvPath} {
		db, _ := openDB(t)
		mustIngest(t, db, Options{Run: "r"}, path)
		got := queryStrings(t, db, `SELECT concat_ws(' ', run, latency_ms) FROM requests ORDER BY seq`)
		want := append([]string(nil), want...)
		want[2], want[3] = "r 3.0", "r 4.0" // --run replaces a scenario
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s with --run (-want +got):\n%s", path, diff)
		}
	}
	for path, line := range map[string]string{jsonPath: "life.json:6:", csvPath: "life.csv:7:"} {
		db, _ := openDB(t)
		_, err := Files(context.Background(), db, Options{}, []string{path})
		if err == nil || !strings.Contains(err.Error(), line+` field "run": missing`) {
			t.Errorf("without --run: got %v, want only %s (group ::setupx, no scenario) missing its run", err, line)
		}
	}
}

// TestK6Errors: a malformed record names file, line and field, and the
// database is left as it was.
func TestK6Errors(t *testing.T) {
	first := `{"type":"Metric","data":{"name":"vus","type":"gauge"},"metric":"vus"}`
	point := func(data string) string {
		return `{"type":"Point","metric":"http_req_duration","data":` + data + `}`
	}
	cases := []struct{ line, want string }{
		{point(`{"time":"yesterday","value":1}`), `bad.json:2: field "data.time": want an RFC 3339 time such as 2021-02-24T13:37:10.123456789Z, got "yesterday"`},
		{point(`{"value":1}`), `bad.json:2: field "data.time": want an RFC 3339 time, got null`},
		{point(`{"time":T1,"value":"12x"}`), `bad.json:2: field "data.value": not a number "12x"`},
		{point(`{"time":T1,"value":1e400}`), `bad.json:2: field "data.value": out of range 1e400`},
		{point(`{"time":T1,"value":1,"tags":{"status":"2OO"}}`), `bad.json:2: field "data.tags.status": want an HTTP status, got "2OO"`},
		{point(`{"time":T1,"value":1,"tags":{"status":"1200"}}`), `bad.json:2: field "data.tags.status": out of range 1200 (want 0..999)`},
		{point(`{"time":T1,"value":1,"tags":{"expected_response":"maybe"}}`), `bad.json:2: field "data.tags.expected_response": want "true" or "false", got "maybe"`},
		{point(`{"time":T1,"value":1,"tags":["a"]}`), `bad.json:2: field "data.tags": want a JSON object, got object ["a"]`},
		{point(`"now"`), `bad.json:2: field "data": want an object with time, value and tags, got "now"`},
		{point(`{"time":T1,"value":-1,"tags":{"scenario":"s"}}`), `bad.json:2: field "latency_ms": negative -1`},
		{`{"type":"Sample","metric":"vus","data":{}}`, `bad.json:2: field "type": want "Metric" or "Point", got "Sample"`},
		{`{"type":"Point","data":{}}`, `bad.json:2: field "metric": missing (want the metric's name)`},
		{`{"type":"Metric","metric":"x","data":5}`, `bad.json:2: field "data": want a JSON object, got number 5`},
		{`{"type":"Point",`, `bad.json:2: bad JSON: `},
		{"{\"type\":\"Point\",\"metric\":\"\xff\"}", `bad.json:2: invalid UTF-8`},
	}
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, chaosFixture)
	before := snapshot(t, db)
	for _, c := range cases {
		path := k6File(t, "bad.json", first, c.line)
		_, err := Files(context.Background(), db, Options{}, []string{path})
		if err == nil {
			t.Errorf("%s: no error, want %q", c.line, c.want)
			continue
		}
		got := strings.TrimPrefix(err.Error(), filepath.Dir(path)+string(filepath.Separator))
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.line, got, c.want)
		}
	}
	if after := snapshot(t, db); after != before {
		t.Error("a failed ingest changed the database")
	}
}

// TestK6CSVTimeFormats reads every timeFormat k6 defines. Whole seconds are
// kept as k6 wrote them (the end of the response, truncated); finer times
// give the send time, time minus http_req_duration, in their own unit.
func TestK6CSVTimeFormats(t *testing.T) {
	cases := []struct {
		format, ts1, ts2 string
		want             []string
		resolution       float64
	}{
		{"unix", "1735732800", "1735732801", []string{"12:00:00.000000", "12:00:01.000000"}, 1000},
		{"rfc3339", "2025-01-01T13:00:00+01:00", "2025-01-01T12:00:01Z", []string{"12:00:00.000000", "12:00:01.000000"}, 1000},
		{"unix_milli", "1735732800412", "1735732801412", []string{"12:00:00.324000", "12:00:01.324000"}, 1},
		{"unix_micro", "1735732800412345", "1735732801412345", []string{"12:00:00.324845", "12:00:01.324845"}, 0.001},
		{"unix_nano", "1735732800412345678", "1735732801412345678", []string{"12:00:00.324845", "12:00:01.324845"}, 0.001},
		{"rfc3339_nano", "2025-01-01T12:00:00.412345678Z", "2025-01-01T12:00:01.412345678Z", []string{"12:00:00.324845", "12:00:01.324845"}, 0.001},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			path := writeFile(t, "run.csv", "metric_name,timestamp,metric_value,expected_response,scenario,status,extra_tags\n"+
				"http_req_duration,"+c.ts1+",87.500000,true,default,200,\n"+
				"http_req_duration,"+c.ts2+",87.500000,false,default,200,\n")
			db, _ := openDB(t)
			res := mustIngest(t, db, Options{}, path)
			if res[0].Format != k6.CSVName || res[0].ResolutionMs != c.resolution {
				t.Errorf("format %q, resolution %v ms: want k6-csv, %v ms", res[0].Format, res[0].ResolutionMs, c.resolution)
			}
			got := queryStrings(t, db, `SELECT strftime(ts, '%H:%M:%S.%f') FROM requests ORDER BY seq`)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("ts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestK6CSVTags: empty cells are absent tags, extra_tags and metadata are
// k=v pairs, and the CSV groups like the JSON.
func TestK6CSVTags(t *testing.T) {
	path := writeFile(t, "run.csv", "metric_name,timestamp,metric_value,check,group,scenario,status,url,extra_tags,metadata\n"+
		"http_reqs,1735732800,1.000000,,,s,0,http://x/,a=1&b=2,trace_id=t1\n"+
		"http_req_duration,1735732800,5.000000,,,s,0,http://x/,a=1&b=2,trace_id=t1\n"+
		"http_req_failed,1735732800,1.000000,,,s,0,http://x/,a=1&b=2,trace_id=t1\n"+
		"http_req_duration,1735732800,6.000000,,,s,200,http://x/,a=1&b=2,trace_id=t2\n"+
		"checks,1735732800,1.000000,\"ok, really\",::g,s,,,,\n")
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, path)
	got := queryStrings(t, db, `SELECT concat_ws(' | ', line, run, latency_ms, outcome, status, attrs) FROM requests ORDER BY seq`)
	want := []string{
		`3 | s | 5.0 | error | 0 | {"a":"1","b":"2","failed":1,"scenario":"s","time":"1735732800","trace_id":"t1","url":"http://x/"}`,
		`5 | s | 6.0 | ok | 200 | {"a":"1","b":"2","scenario":"s","time":"1735732800","trace_id":"t2","url":"http://x/"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	got = queryStrings(t, db, `SELECT concat_ws(' | ', line, subject, state, attrs) FROM events`)
	if diff := cmp.Diff([]string{`6 | checks | 1 | {"check":"ok, really","group":"::g","scenario":"s"}`}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestK6CSVErrors(t *testing.T) {
	header := "metric_name,timestamp,metric_value,scenario,status,extra_tags"
	cases := []struct{ line, want string }{
		{"http_req_duration,soon,1.0,s,200,", `bad.csv:2: field "timestamp": want Unix seconds (or ms, µs, ns) or an RFC 3339 time, got "soon"`},
		{"http_req_duration,-5,1.0,s,200,", `bad.csv:2: field "timestamp": want Unix seconds`},
		{"http_req_duration,1735732800,1.0x,s,200,", `bad.csv:2: field "metric_value": not a number "1.0x"`},
		{"http_req_duration,1735732800,1.0,s,2OO,", `bad.csv:2: field "status": want an HTTP status, got "2OO"`},
		{",1735732800,1.0,s,200,", `bad.csv:2: field "metric_name": missing`},
		{"http_req_duration,1735732800,1.0,s", `bad.csv:2: bad CSV: wrong number of fields`},
		{"", `bad.csv:1: not a k6 CSV header: want metric_name,timestamp,metric_value first, got "metric,timestamp"`},
	}
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, chaosFixture)
	before := snapshot(t, db)
	for _, c := range cases {
		path := writeFile(t, "bad.csv", header+"\n"+c.line+"\n")
		if c.line == "" {
			path = writeFile(t, "bad.csv", "metric,timestamp\nvus,1\n")
		}
		_, err := Files(context.Background(), db, Options{From: k6.CSVName}, []string{path})
		if err == nil {
			t.Errorf("%s: no error, want %q", c.line, c.want)
			continue
		}
		got := strings.TrimPrefix(err.Error(), filepath.Dir(path)+string(filepath.Separator))
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.line, got, c.want)
		}
	}
	if after := snapshot(t, db); after != before {
		t.Error("a failed ingest changed the database")
	}
}

func TestK6Detect(t *testing.T) {
	cases := []struct{ head, want string }{
		{`{"type":"Metric","data":{"name":"vus","type":"gauge"},"metric":"vus"}`, k6.Name},
		{`{"metric":"http_reqs","type":"Point","data":{"time":"2024-01-01T00:00:00Z","value":1,"tags":{}}}`, k6.Name},
		{`{"type":"Point","data":{"time":"2017-05-09T14:34:45.625742514+02:00","value":5,"tags":null},"metric":"vus"}`, k6.Name},
		{`{"type":"Point","metric":"vus"}`, FormatNDJSON},
		{`{"run":"a","type":"Point","outcome":"ok"}`, FormatNDJSON},
		{"metric_name,timestamp,metric_value,check,error\nvus,1,1.000000,,\n", k6.CSVName},
		{"\ufeffmetric_name,timestamp,metric_value,extra_tags\n", k6.CSVName},
		{"metric_name,value\n", FormatCSV},
	}
	for _, c := range cases {
		name := "x.json"
		if !strings.HasPrefix(c.head, "{") {
			name = "x.csv"
		}
		got, err := Detect(name, []byte(c.head))
		if err != nil || got != c.want {
			t.Errorf("Detect(%q) = %q, %v; want %q", c.head, got, err, c.want)
		}
	}
}

func FuzzK6(f *testing.F)    { fuzzFormat(f, k6.Name, "testdata/real/k6/*/input*") }
func FuzzK6CSV(f *testing.F) { fuzzFormat(f, k6.CSVName, "testdata/real/k6-csv/*/input*") }
