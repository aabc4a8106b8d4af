package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest/format/traces"
)

// TestTraceDetect: Jaeger's {"data": [...]} and one trace object, Zipkin's
// span array, one span and /api/v2/traces' array of arrays; neither takes
// OTLP, a canonical array or a k6 summary.
func TestTraceDetect(t *testing.T) {
	for body, want := range map[string]string{
		`{"data":[{"traceID":"a","spans":[],"processes":{}}],"total":0}`: traces.JaegerName,
		"{\n  \"traceID\": \"a\",\n  \"spans\": []\n}":                   traces.JaegerName,
		`[{"traceId":"a","id":"b","timestamp":1}]`:                       traces.ZipkinName,
		`{"traceId":"a","id":"b"}`:                                       traces.ZipkinName,
		`[[{"traceId":"a","id":"b"}],[{"traceId":"c","id":"d"}]]`:        traces.ZipkinName,
		`{"resourceSpans":[]}`:                                           traces.OTLPName,
		`[{"run":"r","outcome":"ok"}]`:                                   FormatJSON,
		`{"data":{"rows":[]}}`:                                           FormatNDJSON,
	} {
		f, err := detectFormat("x.json", []byte(body))
		if err != nil || f.Name() != want {
			t.Errorf("%s: detected %q (%v), want %q", body, f.Name(), err, want)
		}
	}
}

// TestZipkinArrays: /api/v2/traces answers an array of traces (arrays of
// spans); a span without duration has a time and no latency.
func TestZipkinArrays(t *testing.T) {
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, writeFile(t, "t.json", `[[{"traceId":"A1","id":"b","kind":"SERVER","timestamp":1000000,"duration":1500,
"localEndpoint":{"serviceName":"api"},"tags":{"http.status_code":"503"}}],
[{"traceId":"c","id":"d","timestamp":2000000,"annotations":[{"timestamp":2000001,"value":"ws"}]}]]`))
	got := queryStrings(t, db, `SELECT concat_ws(' | ', run, req_text, strftime(ts, '%S.%f'), coalesce(latency_ms::VARCHAR, '-'), outcome, coalesce(status::VARCHAR, '-'), line) FROM requests ORDER BY seq`)
	want := []string{"api | a1 | 01.000000 | 1.5 | error | 503 | 1", "unknown_service | c | 02.000000 | - | ok | - | 3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestTraceErrors: a malformed span names file, line and field, and the
// database is left as it was.
func TestTraceErrors(t *testing.T) {
	const jaegerSpan = `{"traceID":"a","spanID":"b","startTime":%s,"duration":5,"tags":[%s],"processID":"p1"}`
	jaeger := func(start, tag string) string {
		return "{\"data\": [{\"traceID\": \"a\",\n\"spans\": [\n" + strings.Replace(strings.Replace(jaegerSpan, "%s", start, 1), "%s", tag, 1) + "\n],\n\"processes\": {\"p1\": {\"serviceName\": \"s\"}}}]}\n"
	}
	for _, c := range []struct{ name, body, want string }{
		{"j1.json", jaeger(`"soon"`, ""), `j1.json:3: field "startTime": want µs as a whole number ≥ 0, got "soon"`},
		{"j2.json", jaeger("1", `{"key":"http.status_code","type":"int64","value":"x"}`), `j2.json:3: field "tags.http.status_code": want a value of type "int64", got "x"`},
		{"j3.json", jaeger("1", `{"key":"http.status_code","type":"int64","value":1200}`), `j3.json:3: field "attributes.http.status_code": want an HTTP status code, got 1200`},
		{"j4.json", strings.Replace(jaeger("1", ""), `{"serviceName": "s"}`, `{"serviceName": 5}`, 1), `j4.json:5: field "processes.p1": want {"serviceName", "tags"}`},
		{"z1.json", "[\n{\"traceId\":\"a\",\"id\":\"b\",\"timestamp\":1},\n{\"traceId\":\"a\",\"id\":\"c\",\"timestamp\":-1}\n]", `z1.json:3: field "timestamp": want µs as a whole number ≥ 0, got number -1`},
		{"z2.json", "[\n{\"traceId\":\"a\",\"id\":\"b\"},\n{\"id\":\"c\"}\n]", `z2.json:3: field "traceId": missing`},
		{"z3.json", "[\n{\"traceId\":\"a\",\"id\":\"b\"},\n7\n]", `z3.json:3: want a Zipkin span object, got number 7`},
		{"z4.json", "[\n{\"traceId\":\"a\",\"id\":\"b\",\"tags\":{\"n\":1}}\n]", `z4.json:2: bad span: `},
		{"z5.json", "[\n{\"traceId\":\"a\",\"id\":\"b\"},\n", `z5.json:3: bad JSON: unexpected end of file (truncated?)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openDB(t)
			before := snapshot(t, db)
			_, err := Files(context.Background(), db, Options{}, []string{writeFile(t, c.name, c.body)})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v\nwant one with %s", err, c.want)
			}
			if snapshot(t, db) != before {
				t.Error("a failed ingest changed the database")
			}
		})
	}
}

func FuzzJaeger(f *testing.F) { fuzzFormat(f, traces.JaegerName, "testdata/real/jaeger/*/input*") }
func FuzzZipkin(f *testing.F) { fuzzFormat(f, traces.ZipkinName, "testdata/real/zipkin/*/input*") }
