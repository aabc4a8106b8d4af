package traces

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// ZipkinName names Zipkin's v2 JSON: an array of spans (what
// /api/v2/trace/ID returns and reporters POST to /api/v2/spans; also one
// span object, or a /api/v2/traces answer, an array of such arrays).
// Each span becomes an OTLP span mapped by the otlp adapter's rules: one
// row per SERVER or CLIENT span or root span; the run is
// localEndpoint.serviceName; ts timestamp (µs); latency duration (µs);
// status the http.status_code tag; outcome error when the span has an
// error tag (Zipkin's convention: its presence, whatever its value).
const ZipkinName = "zipkin"

func detectZipkin(_ string, head []byte) bool {
	t := record.JSONText(head)
	for len(t) > 0 && t[0] == '[' { // a span array, or /api/v2/traces' array of them
		t = bytes.TrimLeft(t[1:], " \t\r\n")
	}
	k := record.TopKeys(t)
	return k["traceId"] && k["id"]
}

func decodeZipkin(in record.Input, c record.Sink) (record.Produce, error) {
	return decodeTraceDoc(in, (*otlpRows).zipkinValue)
}

// zipkinValue reads a span, or an array of spans or of span arrays.
func (o *otlpRows) zipkinValue(raw json.RawMessage, line int64) error {
	if len(raw) > 0 && raw[0] == '[' {
		return record.WalkArray(raw, line, "spans", o.zipkinValue)
	}
	return o.zipkinSpan(raw, line)
}

type zipkinEndpoint struct {
	ServiceName string `json:"serviceName"`
	IPv4        string `json:"ipv4"`
	IPv6        string `json:"ipv6"`
	Port        int64  `json:"port"`
}

type zipkinSpanDoc struct {
	TraceID        string            `json:"traceId"`
	ID             string            `json:"id"`
	ParentID       string            `json:"parentId"`
	Kind           string            `json:"kind"`
	Name           string            `json:"name"`
	Timestamp      json.RawMessage   `json:"timestamp"`
	Duration       json.RawMessage   `json:"duration"`
	LocalEndpoint  *zipkinEndpoint   `json:"localEndpoint"`
	RemoteEndpoint *zipkinEndpoint   `json:"remoteEndpoint"`
	Annotations    []zipkinNote      `json:"annotations"`
	Tags           map[string]string `json:"tags"`
	Shared         bool              `json:"shared"`
	Debug          bool              `json:"debug"`
}

type zipkinNote struct {
	Timestamp json.RawMessage `json:"timestamp"`
	Value     string          `json:"value"`
}

var zipkinKinds = map[string]tracepb.Span_SpanKind{"SERVER": tracepb.Span_SPAN_KIND_SERVER, "CLIENT": tracepb.Span_SPAN_KIND_CLIENT,
	"PRODUCER": tracepb.Span_SPAN_KIND_PRODUCER, "CONSUMER": tracepb.Span_SPAN_KIND_CONSUMER}

func (o *otlpRows) zipkinSpan(raw json.RawMessage, line int64) error {
	if v := record.JSONVal(raw); v.Kind != 'o' {
		return record.LineErr(line, "want a Zipkin span object, got %s", v.Describe())
	}
	var s zipkinSpanDoc
	if err := json.Unmarshal(raw, &s); err != nil {
		return record.LineErr(line, "bad span: %s", record.JSONMsg(err))
	}
	if s.TraceID == "" || s.ID == "" {
		return record.FieldErr(line, map[bool]string{true: "traceId", false: "id"}[s.TraceID == ""], "missing")
	}
	sp := &tracepb.Span{Name: s.Name, Kind: zipkinKinds[strings.ToUpper(s.Kind)], Status: &tracepb.Status{}}
	start, dur, err := spanMicros(s.Timestamp, s.Duration, line, "timestamp")
	if err != nil {
		return err
	}
	if start > 0 {
		sp.StartTimeUnixNano = start * 1000
		if record.JSONVal(s.Duration).Kind != 'z' {
			sp.EndTimeUnixNano = (start + dur) * 1000
		}
	}
	sp.Attributes = zipkinAttrs(&s)
	if _, failed := s.Tags["error"]; failed {
		sp.Status.Code, sp.Status.Message = tracepb.Status_STATUS_CODE_ERROR, s.Tags["error"]
	}
	for i, a := range s.Annotations {
		ts, err := jaegerMicros(a.Timestamp, line, "annotations."+strconv.Itoa(i)+".timestamp")
		if err != nil {
			return err
		}
		sp.Events = append(sp.Events, &tracepb.Span_Event{TimeUnixNano: ts * 1000, Name: a.Value})
	}
	res := otlpResource{service: otlpUnknownService}
	if s.LocalEndpoint != nil && s.LocalEndpoint.ServiceName != "" {
		res.service = s.LocalEndpoint.ServiceName
	}
	ids := [3]string{strings.ToLower(s.TraceID), strings.ToLower(s.ID), strings.ToLower(s.ParentID)}
	return o.spanRow(sp, ids, res, nil, line)
}

// zipkinAttrs are the tags (strings, in name order) and, as the
// OpenTelemetry collector's Zipkin receiver names them, the remote
// service (peer.service) and whether the span is shared.
func zipkinAttrs(s *zipkinSpanDoc) []*commonpb.KeyValue {
	keys := make([]string, 0, len(s.Tags))
	for k := range s.Tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	out := make([]*commonpb.KeyValue, 0, len(keys)+2)
	for _, k := range keys {
		out = append(out, str(k, s.Tags[k]))
	}
	if r := s.RemoteEndpoint; r != nil && r.ServiceName != "" && s.Tags["peer.service"] == "" {
		out = append(out, str("peer.service", r.ServiceName))
	}
	if s.Shared {
		out = append(out, &commonpb.KeyValue{Key: "zipkin.shared", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: true}}})
	}
	return out
}
