package traces

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// JaegerName names Jaeger's JSON trace model: what the UI's "Download
// JSON" and the query API (/api/traces, /api/traces/ID) return,
// {"data": [trace, ...]}, or one trace object {"traceID", "spans",
// "processes"} (jaeger internal/uimodel). Each span becomes an OTLP span
// and is mapped by the otlp adapter's rules: one row per SERVER or CLIENT
// span (tag span.kind) or root span; the run is the span's process
// serviceName; ts startTime (µs); latency duration (µs); status the
// http.status_code tag; outcome error when the tag error is true or
// otel.status_code is ERROR.
const JaegerName = "jaeger"

func detectJaeger(_ string, head []byte) bool {
	k := record.TopKeys(head)
	if k["data"] {
		return bytes.Contains(head, []byte(`"traceID"`)) && bytes.Contains(head, []byte(`"spans"`))
	}
	return k["traceID"] && k["spans"]
}

func decodeJaeger(in record.Input, c record.Sink) (record.Produce, error) {
	return decodeTraceDoc(in, (*otlpRows).jaegerDoc)
}

// decodeTraceDoc reads a whole JSON document of traces (Jaeger's, Zipkin's)
// value by value, each through read, as OTLP's rows.
func decodeTraceDoc(in record.Input, read func(o *otlpRows, raw json.RawMessage, line int64) error) (record.Produce, error) {
	data, err := in.All()
	if err != nil {
		return nil, err
	}
	// encoding/json would make invalid UTF-8 in a key U+FFFD and then miss
	// the key: the text the guard saw wins.
	if err := in.TextErr(); err != nil {
		return nil, err
	}
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		o := &otlpRows{ctx: ctx, add: add, json: true}
		d := record.NewDoc(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
		for d.Dec.More() {
			raw, line, err := d.Value()
			if err != nil {
				return err
			}
			if err := read(o, raw, line); err != nil {
				return err
			}
		}
		return d.Trailing()
	}), nil
}

// jaegerDoc reads {"data": [trace, ...]} or one trace.
func (o *otlpRows) jaegerDoc(raw json.RawMessage, line int64) error {
	var traces *record.RawAt
	err := record.WalkObject(raw, line, func(key string, v json.RawMessage, line int64) error {
		if key == "data" {
			traces = &record.RawAt{Raw: v, Line: line}
		}
		return nil
	})
	if err != nil || traces == nil {
		if err == nil {
			err = o.jaegerTrace(raw, line)
		}
		return err
	}
	return record.WalkArray(traces.Raw, traces.Line, "data", o.jaegerTrace)
}

type jaegerTag struct {
	Key   string          `json:"key"`
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

type jaegerProcess struct {
	ServiceName string      `json:"serviceName"`
	Tags        []jaegerTag `json:"tags"`
}

// jaegerTrace reads one trace: its processes first (they may follow the
// spans in the document), then each span.
func (o *otlpRows) jaegerTrace(raw json.RawMessage, line int64) error {
	var spans []record.RawAt
	procs := map[string]otlpResource{}
	err := record.WalkObject(raw, line, func(key string, v json.RawMessage, line int64) error {
		switch key {
		case "spans":
			spans = append(spans, record.RawAt{Raw: v, Line: line})
		case "processes":
			return record.WalkObject(v, line, func(id string, v json.RawMessage, line int64) error {
				var p jaegerProcess
				if err := json.Unmarshal(v, &p); err != nil {
					return record.FieldErr(line, "processes."+id, "want {\"serviceName\", \"tags\"}: %s", record.JSONMsg(err))
				}
				res, err := jaegerResource(&p, line, "processes."+id)
				procs[id] = res
				return err
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, s := range spans {
		err := record.WalkArray(s.Raw, s.Line, "spans", func(raw json.RawMessage, line int64) error {
			return o.jaegerSpan(raw, line, procs)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func jaegerResource(p *jaegerProcess, line int64, field string) (otlpResource, error) {
	res := otlpResource{service: otlpUnknownService}
	if p.ServiceName != "" {
		res.service = p.ServiceName
	}
	kvs, err := jaegerKVs(p.Tags, line, field+".tags")
	if len(kvs) > 0 {
		res.attrs = kvJSON(kvs)
	}
	return res, err
}

type jaegerSpanDoc struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	ParentSpanID  string `json:"parentSpanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		TraceID string `json:"traceID"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	StartTime json.RawMessage `json:"startTime"`
	Duration  json.RawMessage `json:"duration"`
	Tags      []jaegerTag     `json:"tags"`
	Logs      []struct {
		Timestamp json.RawMessage `json:"timestamp"`
		Fields    []jaegerTag     `json:"fields"`
	} `json:"logs"`
	ProcessID string         `json:"processID"`
	Process   *jaegerProcess `json:"process"`
	Warnings  []string       `json:"warnings"`
}

func (o *otlpRows) jaegerSpan(raw json.RawMessage, line int64, procs map[string]otlpResource) error {
	var s jaegerSpanDoc
	if err := json.Unmarshal(raw, &s); err != nil {
		return record.LineErr(line, "bad span: %s", record.JSONMsg(err))
	}
	sp := &tracepb.Span{Name: s.OperationName}
	start, dur, err := spanMicros(s.StartTime, s.Duration, line, "startTime")
	if err != nil {
		return err
	}
	if start > 0 {
		sp.StartTimeUnixNano, sp.EndTimeUnixNano = start*1000, (start+dur)*1000
	}
	if sp.Attributes, err = jaegerKVs(s.Tags, line, "tags"); err != nil {
		return err
	}
	jaegerKindStatus(sp)
	if sp.Events, err = jaegerLogs(&s, line); err != nil {
		return err
	}
	res, ok := procs[s.ProcessID]
	if s.Process != nil {
		if res, err = jaegerResource(s.Process, line, "process"); err != nil {
			return err
		}
	} else if !ok {
		res = otlpResource{service: otlpUnknownService}
	}
	ids := [3]string{strings.ToLower(s.TraceID), strings.ToLower(s.SpanID), strings.ToLower(jaegerParent(&s))}
	return o.spanRow(sp, ids, res, nil, line)
}

// jaegerParent is parentSpanID (Jaeger's older JSON), else the first
// CHILD_OF reference in the span's own trace, else the first CHILD_OF.
func jaegerParent(s *jaegerSpanDoc) string {
	if s.ParentSpanID != "" {
		return s.ParentSpanID
	}
	first := ""
	for _, r := range s.References {
		if r.RefType != "CHILD_OF" {
			continue
		}
		if r.TraceID == s.TraceID {
			return r.SpanID
		}
		if first == "" {
			first = r.SpanID
		}
	}
	return first
}

// jaegerMicros reads a time in µs; absent is 0.
func jaegerMicros(raw json.RawMessage, line int64, field string) (uint64, error) {
	v := record.JSONVal(raw)
	if v.Kind == 'z' {
		return 0, nil
	}
	n, err := strconv.ParseUint(v.Text, 10, 64)
	if v.Kind != 'n' || err != nil || n > 1<<62/1000 {
		return 0, record.FieldErr(line, field, "want µs as a whole number ≥ 0, got %s", v.Describe())
	}
	return n, nil
}

// spanMicros reads a span's start (the field named startField) and its
// duration, both in µs as jaegerMicros reads them: Jaeger's and Zipkin's
// spans time themselves alike.
func spanMicros(startRaw, durRaw json.RawMessage, line int64, startField string) (start, dur uint64, err error) {
	if start, err = jaegerMicros(startRaw, line, startField); err != nil {
		return 0, 0, err
	}
	dur, err = jaegerMicros(durRaw, line, "duration")
	return start, dur, err
}

// jaegerKVs turns typed tags into OTLP attributes.
func jaegerKVs(tags []jaegerTag, line int64, field string) ([]*commonpb.KeyValue, error) {
	out := make([]*commonpb.KeyValue, 0, len(tags))
	for _, t := range tags {
		v, err := jaegerValue(t)
		if err != nil {
			return nil, record.FieldErr(line, field+"."+t.Key, "%v", err)
		}
		out = append(out, &commonpb.KeyValue{Key: t.Key, Value: v})
	}
	return out, nil
}

func jaegerValue(t jaegerTag) (*commonpb.AnyValue, error) {
	v := record.JSONVal(t.Value)
	switch {
	case (t.Type == "string" || t.Type == "binary" || t.Type == "") && v.Kind == 's':
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.Text}}, nil
	case t.Type == "bool" && v.Kind == 'b':
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.Text == "true"}}, nil
	case t.Type == "int64" && (v.Kind == 'n' || v.Kind == 's'): // beyond 2^53 the UI's JSON writes a string
		if n, err := strconv.ParseInt(v.Text, 10, 64); err == nil {
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: n}}, nil
		}
	case t.Type == "float64" && (v.Kind == 'n' || v.Kind == 's'):
		if f, err := strconv.ParseFloat(v.Text, 64); err == nil {
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: f}}, nil
		}
	}
	return nil, fmt.Errorf("want a value of type %q, got %s", t.Type, v.Describe())
}

// jaegerKindStatus sets the span's kind from the span.kind tag and its
// status from otel.status_code (what Jaeger writes for OTLP spans) or the
// error tag (true as a bool or a string).
func jaegerKindStatus(sp *tracepb.Span) {
	kinds := map[string]tracepb.Span_SpanKind{"server": tracepb.Span_SPAN_KIND_SERVER, "client": tracepb.Span_SPAN_KIND_CLIENT,
		"producer": tracepb.Span_SPAN_KIND_PRODUCER, "consumer": tracepb.Span_SPAN_KIND_CONSUMER, "internal": tracepb.Span_SPAN_KIND_INTERNAL}
	st := &tracepb.Status{}
	for _, kv := range sp.Attributes {
		s := kv.GetValue().GetStringValue()
		switch kv.GetKey() {
		case "span.kind":
			sp.Kind = kinds[strings.ToLower(s)]
		case "otel.status_code":
			switch s {
			case "ERROR":
				st.Code = tracepb.Status_STATUS_CODE_ERROR
			case "OK":
				st.Code = tracepb.Status_STATUS_CODE_OK
			}
		case "otel.status_description":
			st.Message = s
		case "error":
			if kv.GetValue().GetBoolValue() || s == "true" {
				st.Code = tracepb.Status_STATUS_CODE_ERROR
			}
		}
	}
	sp.Status = st
}

// jaegerLogs keeps the span's logs as events: the field named event is
// the event's name, the others its attributes.
func jaegerLogs(s *jaegerSpanDoc, line int64) ([]*tracepb.Span_Event, error) {
	var out []*tracepb.Span_Event
	for i, l := range s.Logs {
		field := "logs." + strconv.Itoa(i)
		ts, err := jaegerMicros(l.Timestamp, line, field+".timestamp")
		if err != nil {
			return nil, err
		}
		kvs, err := jaegerKVs(l.Fields, line, field+".fields")
		if err != nil {
			return nil, err
		}
		ev := &tracepb.Span_Event{TimeUnixNano: ts * 1000}
		for _, kv := range kvs {
			if kv.GetKey() == "event" && ev.Name == "" && kv.GetValue().GetStringValue() != "" {
				ev.Name = kv.GetValue().GetStringValue()
				continue
			}
			ev.Attributes = append(ev.Attributes, kv)
		}
		out = append(out, ev)
	}
	return out, nil
}
