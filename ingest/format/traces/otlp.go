package traces

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// OTLPName names OpenTelemetry trace exports: OTLP/JSON (one
// {"resourceSpans": [...]} document, or one per line as the collector's
// file exporter writes) or OTLP protobuf (TracesData or
// ExportTraceServiceRequest, which share their wire format).
//
// One row per span that is a request: kind SERVER or CLIENT, or a root
// span (no parent). Other spans (internal, producer, consumer children)
// are skipped. req_text is the trace id, ts the span's start, latency_ms
// its end minus start, status the HTTP status attribute (old or new
// semantic-convention name), outcome the span status (ERROR → error, OK →
// ok, UNSET → from the HTTP status when there is one, else ok), the run
// the resource's service.name.
const OTLPName = "otlp"

// otlpUnknownService is the run of spans whose resource names no service,
// the name the OpenTelemetry SDKs give such a service.
const otlpUnknownService = "unknown_service"

// detectOtlp takes JSON whose first key is resourceSpans, or a protobuf
// file by its extension (binary OTLP has no magic bytes).
func detectOtlp(name string, head []byte) bool {
	if record.HasExt(name, ".pb", ".binpb", ".otlp") {
		return true
	}
	return otlpHead.Match(record.JSONText(head))
}

// otlpHead is the start of an OTLP/JSON traces document, also as Jaeger's
// API v3 wraps it ({"result": {"resourceSpans": ...}}).
var otlpHead = regexp.MustCompile(`^\{\s*(?:"result"\s*:\s*\{\s*)?"resource_?[sS]pans"`)

func decodeOtlp(in record.Input, c record.Sink) (record.Produce, error) {
	if t := record.JSONText(in.Head()); len(t) == 0 || t[0] != '{' {
		in.Unlined() // protobuf: binary, no text check
	}
	data, err := in.All()
	if err != nil {
		return nil, err
	}
	isJSON := len(record.JSONText(data)) > 0 && record.JSONText(data)[0] == '{'
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		o := &otlpRows{ctx: ctx, add: add, json: isJSON}
		if isJSON {
			return o.jsonDocs(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
		}
		return o.protoFile(data)
	}), nil
}

// otlpRows turns spans into rows, whichever encoding they came in.
type otlpRows struct {
	ctx   context.Context
	add   func(*record.Row) error
	json  bool
	spans int64 // spans read so far, skipped ones included
	r     record.Row
}

// otlpResource is what every span of one resourceSpans shares.
type otlpResource struct {
	service string
	attrs   json.RawMessage // the other resource attributes, or nil
}

func newOtlpResource(res *resourcepb.Resource) otlpResource {
	out := otlpResource{service: otlpUnknownService}
	rest := res.GetAttributes()[:0:0]
	for _, kv := range res.GetAttributes() {
		if kv.GetKey() == "service.name" && kv.GetValue().GetStringValue() != "" {
			out.service = kv.GetValue().GetStringValue()
			continue
		}
		rest = append(rest, kv)
	}
	if len(rest) > 0 {
		out.attrs = kvJSON(rest)
	}
	return out
}

// span emits the row of one span when it is a request.
func (o *otlpRows) span(sp *tracepb.Span, res otlpResource, scope *commonpb.InstrumentationScope, line int64) error {
	ids, err := o.spanIDs(sp, line)
	if err != nil {
		return err
	}
	return o.spanRow(sp, ids, res, scope, line)
}

// spanRow is span with its trace, span and parent ids given as text: the
// Jaeger and Zipkin adapters build a Span from their own documents and
// keep their ids as written.
func (o *otlpRows) spanRow(sp *tracepb.Span, ids [3]string, res otlpResource, scope *commonpb.InstrumentationScope, line int64) error {
	o.spans++
	if o.spans%1024 == 0 && o.ctx.Err() != nil {
		return o.ctx.Err()
	}
	kind := sp.GetKind()
	if kind != tracepb.Span_SPAN_KIND_SERVER && kind != tracepb.Span_SPAN_KIND_CLIENT && ids[2] != "" {
		return nil
	}
	r := &o.r
	r.Reset(line)
	r.Group = res.service
	r.Set(record.ColGroup)
	if ids[0] != "" {
		r.ReqText = ids[0]
		r.Set(record.ColReqText)
	}
	if err := spanTimes(r, sp); err != nil {
		return err
	}
	attrs := map[string]*commonpb.AnyValue{}
	for _, kv := range sp.GetAttributes() {
		attrs[kv.GetKey()] = kv.GetValue()
	}
	if err := spanHTTP(r, attrs); err != nil {
		return err
	}
	switch sp.GetStatus().GetCode() {
	case tracepb.Status_STATUS_CODE_ERROR:
		r.Outcome = "error"
		r.Set(record.ColOutcome)
	case tracepb.Status_STATUS_CODE_OK:
		r.Outcome = "ok"
		r.Set(record.ColOutcome)
	default:
		if !r.Is(record.ColStatus) {
			r.Outcome = "ok"
			r.Set(record.ColOutcome)
		}
	}
	r.Attrs = spanAttrs(sp, ids, res, scope, attrs)
	r.Set(record.ColAttrs)
	return o.add(r)
}

// spanIDs are the trace, span and parent span ids as lower-case hex.
func (o *otlpRows) spanIDs(sp *tracepb.Span, line int64) ([3]string, error) {
	var out [3]string
	fields := []struct {
		name string
		b    []byte
		size int
	}{{"traceId", sp.GetTraceId(), 16}, {"spanId", sp.GetSpanId(), 8}, {"parentSpanId", sp.GetParentSpanId(), 8}}
	for i, f := range fields {
		s, ok := otlpID(f.b, f.size, o.json)
		if !ok {
			return out, record.FieldErr(line, f.name, "want %d hex digits, got %d bytes", 2*f.size, len(f.b))
		}
		out[i] = s
	}
	return out, nil
}

// otlpID renders an id as hex. OTLP/JSON writes ids as hex strings, but
// protojson reads bytes fields as base64: a 32-digit hex trace id comes
// back as the 24 bytes its text decodes to as base64, and encoding those
// bytes again gives the hex text back exactly (hex digits are base64
// characters, and 32 or 16 of them decode without padding). An id of the
// right size came as base64 (some exporters write it so) or as binary.
func otlpID(b []byte, size int, fromJSON bool) (string, bool) {
	switch {
	case len(b) == 0:
		return "", true
	case len(b) == size:
		return hex.EncodeToString(b), true
	case fromJSON && len(b) == size*3/2:
		s := base64.StdEncoding.EncodeToString(b)
		if _, err := hex.DecodeString(s); err == nil {
			return strings.ToLower(s), true
		}
	}
	return "", false
}

func spanTimes(r *record.Row, sp *tracepb.Span) error {
	start, end := sp.GetStartTimeUnixNano(), sp.GetEndTimeUnixNano()
	if start == 0 {
		return nil // unknown start: no time and no latency
	}
	r.TsUs = int64(start / 1000)
	r.Set(record.ColTsUs)
	if end == 0 {
		return nil
	}
	if end < start {
		return record.FieldErr(r.Line, "endTimeUnixNano", "%d is before startTimeUnixNano %d", end, start)
	}
	r.Latency = float64(end-start) / 1e6
	r.Set(record.ColLatency)
	return nil
}

// spanHTTP sets the status from the HTTP status attribute and the attempt
// from the resend count, under their current or older names.
func spanHTTP(r *record.Row, attrs map[string]*commonpb.AnyValue) error {
	for _, k := range []string{"http.response.status_code", "http.status_code"} {
		if v, ok := attrs[k]; ok {
			n, err := anyInt(v)
			if err != nil || n < 0 || n > 999 {
				return record.FieldErr(r.Line, "attributes."+k, "want an HTTP status code, got %s", anyDescribe(v))
			}
			r.Status = int32(n)
			r.Set(record.ColStatus)
			break
		}
	}
	if v, ok := attrs["http.request.resend_count"]; ok {
		n, err := anyInt(v)
		if err != nil || n < 0 || n > math.MaxInt32 {
			return record.FieldErr(r.Line, "attributes.http.request.resend_count", "want a count, got %s", anyDescribe(v))
		}
		r.Attempt = int32(n)
		r.Set(record.ColAttempt)
	}
	return nil
}

// anyInt reads an integer attribute that may be written as a string.
func anyInt(v *commonpb.AnyValue) (int64, error) {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_IntValue:
		return x.IntValue, nil
	case *commonpb.AnyValue_StringValue:
		return strconv.ParseInt(strings.TrimSpace(x.StringValue), 10, 64)
	case *commonpb.AnyValue_DoubleValue:
		if x.DoubleValue == math.Trunc(x.DoubleValue) && math.Abs(x.DoubleValue) < 1<<53 {
			return int64(x.DoubleValue), nil
		}
	}
	return 0, fmt.Errorf("not an integer")
}

func anyDescribe(v *commonpb.AnyValue) string { return record.Truncate(string(anyJSON(v)), 40) }

// spanAttrs keeps what the span says beside the canonical columns: its
// name, kind, ids, scope, status, the HTTP method, route and URL under
// one name whichever convention wrote them, every attribute as it is,
// events, links, and the resource's attributes.
func spanAttrs(sp *tracepb.Span, ids [3]string, res otlpResource, scope *commonpb.InstrumentationScope, attrs map[string]*commonpb.AnyValue) string {
	m := map[string]json.RawMessage{
		"name":        record.JSONString(sp.GetName()),
		"kind":        record.JSONString(strings.ToLower(strings.TrimPrefix(sp.GetKind().String(), "SPAN_KIND_"))),
		"span_status": record.JSONString(strings.ToLower(strings.TrimPrefix(sp.GetStatus().GetCode().String(), "STATUS_CODE_"))),
	}
	opt := func(k, v string) {
		if v != "" {
			m[k] = record.JSONString(v)
		}
	}
	opt("span_id", ids[1])
	opt("parent_span_id", ids[2])
	opt("scope", scope.GetName())
	opt("scope_version", scope.GetVersion())
	opt("status_message", sp.GetStatus().GetMessage())
	opt("trace_state", sp.GetTraceState())
	opt("method", firstString(attrs, "http.request.method", "http.method"))
	opt("route", firstString(attrs, "http.route"))
	opt("url", spanURL(attrs))
	if len(sp.GetAttributes()) > 0 {
		m["attributes"] = kvJSON(sp.GetAttributes())
	}
	if res.attrs != nil {
		m["resource"] = res.attrs
	}
	if len(sp.GetEvents()) > 0 {
		m["events"] = eventsJSON(sp.GetEvents())
	}
	if len(sp.GetLinks()) > 0 {
		m["links"] = linksJSON(sp.GetLinks())
	}
	return record.CompactObject(m)
}

func firstString(attrs map[string]*commonpb.AnyValue, keys ...string) string {
	for _, k := range keys {
		if s := attrs[k].GetStringValue(); s != "" {
			return s
		}
	}
	return ""
}

func spanURL(attrs map[string]*commonpb.AnyValue) string {
	if u := firstString(attrs, "url.full", "http.url"); u != "" {
		return u
	}
	if p := firstString(attrs, "url.path"); p != "" {
		if q := firstString(attrs, "url.query"); q != "" {
			return p + "?" + q
		}
		return p
	}
	return firstString(attrs, "http.target")
}

// anyJSON renders an attribute value as plain JSON.
func anyJSON(v *commonpb.AnyValue) json.RawMessage {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return record.JSONString(x.StringValue)
	case *commonpb.AnyValue_BoolValue:
		return json.RawMessage(strconv.FormatBool(x.BoolValue))
	case *commonpb.AnyValue_IntValue:
		return json.RawMessage(strconv.FormatInt(x.IntValue, 10))
	case *commonpb.AnyValue_DoubleValue:
		if math.IsNaN(x.DoubleValue) || math.IsInf(x.DoubleValue, 0) {
			return record.JSONString(strconv.FormatFloat(x.DoubleValue, 'g', -1, 64))
		}
		return json.RawMessage(strconv.FormatFloat(x.DoubleValue, 'g', -1, 64))
	case *commonpb.AnyValue_BytesValue:
		return record.JSONString(base64.StdEncoding.EncodeToString(x.BytesValue))
	case *commonpb.AnyValue_ArrayValue:
		parts := make([][]byte, len(x.ArrayValue.GetValues()))
		for i, e := range x.ArrayValue.GetValues() {
			parts[i] = anyJSON(e)
		}
		return append(append([]byte{'['}, bytes.Join(parts, []byte{','})...), ']')
	case *commonpb.AnyValue_KvlistValue:
		return kvJSON(x.KvlistValue.GetValues())
	}
	return json.RawMessage("null")
}

func kvJSON(kvs []*commonpb.KeyValue) json.RawMessage {
	m := make(map[string]json.RawMessage, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = anyJSON(kv.GetValue())
	}
	return json.RawMessage(record.CompactObject(m))
}

func eventsJSON(evs []*tracepb.Span_Event) json.RawMessage {
	parts := make([][]byte, len(evs))
	for i, e := range evs {
		// A string, as OTLP/JSON writes it: nanoseconds exceed a double's precision.
		m := map[string]json.RawMessage{"time_unix_nano": record.JSONString(strconv.FormatUint(e.GetTimeUnixNano(), 10))}
		if e.GetName() != "" {
			m["name"] = record.JSONString(e.GetName())
		}
		if len(e.GetAttributes()) > 0 {
			m["attributes"] = kvJSON(e.GetAttributes())
		}
		parts[i] = []byte(record.CompactObject(m))
	}
	return append(append([]byte{'['}, bytes.Join(parts, []byte{','})...), ']')
}

func linksJSON(links []*tracepb.Span_Link) json.RawMessage {
	parts := make([][]byte, len(links))
	for i, l := range links {
		tid, _ := otlpID(l.GetTraceId(), 16, true)
		sid, _ := otlpID(l.GetSpanId(), 8, true)
		m := map[string]json.RawMessage{}
		if tid != "" {
			m["trace_id"] = record.JSONString(tid)
		}
		if sid != "" {
			m["span_id"] = record.JSONString(sid)
		}
		if len(l.GetAttributes()) > 0 {
			m["attributes"] = kvJSON(l.GetAttributes())
		}
		parts[i] = []byte(record.CompactObject(m))
	}
	return append(append([]byte{'['}, bytes.Join(parts, []byte{','})...), ']')
}
