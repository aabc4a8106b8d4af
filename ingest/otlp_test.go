package ingest

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/rewind-dev/rewind/ingest/format/traces"
)

func FuzzOTLP(f *testing.F) { fuzzFormat(f, traces.OTLPName, "testdata/real/otlp/*/input*") }

func TestOtlpDetect(t *testing.T) {
	cases := []struct {
		name, head string
		want       bool
	}{
		{"a.json", `{"resourceSpans":[]}`, true},
		{"a.json", "\xef\xbb\xbf\n  {\n \"resource_spans\": []}", true},
		{"a.json", `{"result": {"resourceSpans": []}}`, true},
		{"a.pb", "\x0a\x00", true},
		{"a.binpb", "\x00\x00\x00\x02\x0a\x00", true},
		{"a.json", `{"run":"a","resourceSpans":1}`, false},
		{"a.json", `{"resourceMetrics":[]}`, false},
		{"a.bin", "\x0a\x00", false},
	}
	for _, c := range cases {
		if got := (traces.OTLP{}).Detect(c.name, []byte(c.head)); got != c.want {
			t.Errorf("detectOtlp(%q, %q) = %v, want %v", c.name, c.head, got, c.want)
		}
	}
}

// otlpTestTraces is two resources: a server span, its internal child
// (skipped) and a client span of another service.
func otlpTestTraces() *tracepb.TracesData {
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	code := func(n int64) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: "http.response.status_code", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: n}}}
	}
	tid := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	span := func(id byte, parent []byte, kind tracepb.Span_SpanKind, start, end uint64, attrs ...*commonpb.KeyValue) *tracepb.Span {
		return &tracepb.Span{TraceId: tid, SpanId: []byte{0, 0, 0, 0, 0, 0, 0, id}, ParentSpanId: parent, Kind: kind,
			Name: "op", StartTimeUnixNano: start, EndTimeUnixNano: end, Attributes: attrs}
	}
	res := func(svc string, spans ...*tracepb.Span) *tracepb.ResourceSpans {
		return &tracepb.ResourceSpans{Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", svc)}},
			ScopeSpans: []*tracepb.ScopeSpans{{Spans: spans}}}
	}
	return &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{
		res("api", span(1, nil, tracepb.Span_SPAN_KIND_SERVER, 1714557600000000000, 1714557600000250000, code(200)),
			span(2, []byte{0, 0, 0, 0, 0, 0, 0, 1}, tracepb.Span_SPAN_KIND_INTERNAL, 1714557600000010000, 1714557600000020000)),
		res("db", span(3, []byte{0, 0, 0, 0, 0, 0, 0, 1}, tracepb.Span_SPAN_KIND_CLIENT, 1714557600000100000, 1714557600000100500, code(503))),
	}}
}

const otlpRowsQuery = `SELECT run || ' ' || req_text || ' ' || strftime(ts, '%H:%M:%S.%f') || ' ' || latency_ms || ' ' ||
	outcome || ' ' || status || ' ' || line FROM requests ORDER BY seq`

var otlpWantRows = []string{
	"api 0102030405060708090a0b0c0d0e0f10 10:00:00.000000 0.25 ok 200 1",
	"db 0102030405060708090a0b0c0d0e0f10 10:00:00.000100 0.0005 error 503 3",
}

// The binary encodings a tool writes: one message, the collector file
// exporter's 4-byte big-endian length prefixes, and varint-delimited
// messages. A span's line is its index in the file.
func TestOtlpProtoStreams(t *testing.T) {
	msg, err := proto.Marshal(otlpTestTraces())
	if err != nil {
		t.Fatal(err)
	}
	be := binary.BigEndian.AppendUint32(nil, uint32(len(msg)))
	cases := map[string][]byte{
		"bare.pb":       msg,
		"fileexp.binpb": append(append(append(append([]byte(nil), be...), msg...), be...), msg...),
		"varint.otlp":   protowire.AppendBytes(protowire.AppendBytes(nil, msg), msg),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			db, _ := openDB(t)
			path := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			res := mustIngest(t, db, Options{}, path)
			if res[0].Format != traces.OTLPName {
				t.Errorf("format %q", res[0].Format)
			}
			want := otlpWantRows
			if name != "bare.pb" { // the second message's spans are 4 to 6
				want = append(want[:2:2], strings.TrimSuffix(want[0], " 1")+" 4", strings.TrimSuffix(want[1], " 3")+" 6")
			}
			if diff := cmp.Diff(want, queryStrings(t, db, otlpRowsQuery)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

// Before OTLP 1.0 a resource's spans were in instrumentation_library_spans
// (field 1000), which the current schema leaves unknown.
func TestOtlpLegacyLibrarySpans(t *testing.T) {
	td := otlpTestTraces()
	for _, rs := range td.ResourceSpans {
		ss, err := proto.Marshal(rs.ScopeSpans[0])
		if err != nil {
			t.Fatal(err)
		}
		rs.ScopeSpans = nil
		rs.ProtoReflect().SetUnknown(protowire.AppendBytes(protowire.AppendTag(nil, 1000, protowire.BytesType), ss))
	}
	msg, err := proto.Marshal(td)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, writeFileBytes(t, "old.pb", msg))
	if diff := cmp.Diff(otlpWantRows, queryStrings(t, db, otlpRowsQuery)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func writeFileBytes(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// OTLP/JSON ids are hex; a base64 id (as grpc-gateway writes) is read too.
func TestOtlpJSONIDs(t *testing.T) {
	doc := `{"resourceSpans":[{"scopeSpans":[{"spans":[
{"traceId":"0102030405060708090A0B0C0D0E0F10","spanId":"0000000000000001","kind":2,"startTimeUnixNano":1714557600000000000,"endTimeUnixNano":"1714557600000250000","attributes":[{"key":"http.status_code","value":{"stringValue":"200"}}]},
{"traceId":"AQIDBAUGBwgJCgsMDQ4PEA==","spanId":"AAAAAAAAAAM=","parentSpanId":"0000000000000001","kind":"SPAN_KIND_CLIENT","startTimeUnixNano":"1714557600000100000","endTimeUnixNano":"1714557600000100500","attributes":[{"key":"http.response.status_code","value":{"intValue":503}}]}
]}],"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"api"}}]}}]}`
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, writeFile(t, "ids.json", doc))
	want := []string{"api 0102030405060708090a0b0c0d0e0f10 10:00:00.000000 0.25 ok 200 2",
		"api 0102030405060708090a0b0c0d0e0f10 10:00:00.000100 0.0005 error 503 3"}
	if diff := cmp.Diff(want, queryStrings(t, db, otlpRowsQuery)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	got := queryStrings(t, db, `SELECT attrs->>'span_id' || ' ' || coalesce(attrs->>'parent_span_id', '-') FROM requests ORDER BY seq`)
	if diff := cmp.Diff([]string{"0000000000000001 -", "0000000000000003 0000000000000001"}, got); diff != "" {
		t.Errorf("span ids (-want +got):\n%s", diff)
	}
}

// Each malformed input names the file, the line and the OTLP field, and
// leaves the database as it was.
func TestOtlpErrors(t *testing.T) {
	span := func(s string) string {
		return `{"resourceSpans":[{"scopeSpans":[{"spans":[` + "\n" + s + `]}]}]}`
	}
	cases := map[string]struct{ in, want string }{
		"bad-trace-id": {span(`{"traceId":"xyz","spanId":"0000000000000001"}`),
			`:2: field "traceId": want 32 hex digits, got 2 bytes`},
		"short-span-id": {span(`{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"00000001"}`),
			`:2: field "spanId": want 16 hex digits, got 6 bytes`},
		"end-before-start": {span(`{"traceId":"0102030405060708090a0b0c0d0e0f10","startTimeUnixNano":"20","endTimeUnixNano":"10"}`),
			`:2: field "endTimeUnixNano": 10 is before startTimeUnixNano 20`},
		"bad-status": {span(`{"kind":2,"attributes":[{"key":"http.status_code","value":{"stringValue":"2xx"}}]}`),
			`:2: field "attributes.http.status_code": want an HTTP status code, got "2xx"`},
		"status-range": {span(`{"kind":2,"attributes":[{"key":"http.response.status_code","value":{"intValue":"1000"}}]}`),
			`:2: field "attributes.http.response.status_code": want an HTTP status code, got 1000`},
		"bad-time": {span(`{"startTimeUnixNano":"soon"}`), `:2: bad span: invalid value for fixed64 field startTimeUnixNano: "soon"`},
		"metrics":  {`{"resourceMetrics":[]}`, `:1: field "resourceMetrics": this is an OTLP Metrics export; only traces (resourceSpans) are read`},
		"spans-not-array": {`{"resourceSpans":[{"scopeSpans":[{"spans":{}}]}]}`,
			`:1: field "spans": want an array, got object {}`},
		"truncated": {"{\"resourceSpans\":[\n{\"scopeSpans\":[", `:2: bad JSON: unexpected end of file (truncated?)`},
		"trailing":  {`{"resourceSpans":[]} ]`, `:1: bad JSON: `},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			db, _ := openDB(t)
			mustIngest(t, db, Options{}, chaosFixture)
			before := snapshot(t, db)
			path := writeFile(t, "in.json", c.in)
			_, err := Files(context.Background(), db, Options{From: traces.OTLPName}, []string{path})
			if err == nil || !strings.HasPrefix(err.Error(), path+c.want) {
				t.Errorf("error %v, want %s%s", err, path, c.want)
			}
			if snapshot(t, db) != before {
				t.Error("a failed ingest changed the database")
			}
		})
	}
}

func TestOtlpProtoErrors(t *testing.T) {
	bad := map[string][]byte{
		"garbage.pb":   []byte("\x0a\xff\xff\xff\xff\x0f"),
		"framing.pb":   {0, 0, 0, 9, 0x0a},
		"legacy.binpb": protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte{0xc2, 0x3e, 0x02, 0x12, 0xff}),
	}
	for name, data := range bad {
		db, _ := openDB(t)
		path := writeFileBytes(t, name, data)
		if _, err := Files(context.Background(), db, Options{}, []string{path}); err == nil || !strings.HasPrefix(err.Error(), path+":") {
			t.Errorf("%s: error %v, want one naming the file", name, err)
		}
	}
}

// A span without service.name is in the run the SDKs name such services.
func TestOtlpUnknownService(t *testing.T) {
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, writeFile(t, "t.json", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"root"}]}]}]}`))
	got := queryStrings(t, db, `SELECT run || ' ' || outcome || ' ' || (ts IS NULL) || ' ' || (latency_ms IS NULL) FROM requests`)
	if diff := cmp.Diff([]string{"unknown_service ok true true"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
