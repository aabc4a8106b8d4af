package traces

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// The OTLP/JSON encoding: documents of resourceSpans read value by value,
// so that each span keeps the line its object starts on.

var otlpJSONOpts = protojson.UnmarshalOptions{DiscardUnknown: true}

// jsonDocs reads one or more OTLP/JSON documents (a file exporter writes one
// per line). Each span's line is where its object starts.
func (o *otlpRows) jsonDocs(data []byte) error {
	d := record.NewDoc(data)
	for d.Dec.More() {
		raw, line, err := d.Value()
		if err != nil {
			return err
		}
		if err := o.jsonDoc(raw, line); err != nil {
			return err
		}
	}
	return d.Trailing()
}

func (o *otlpRows) jsonDoc(raw json.RawMessage, line int64) error {
	if v := record.JSONVal(raw); v.Kind != 'o' || raw[0] != '{' {
		return record.LineErr(line, "want an OTLP/JSON object such as {\"resourceSpans\": [...]}, got %s", v.Describe())
	}
	return record.WalkObject(raw, line, func(key string, v json.RawMessage, line int64) error {
		switch key {
		case "resourceSpans", "resource_spans":
			return record.WalkArray(v, line, key, o.jsonResourceSpans)
		case "result": // Jaeger's API v3 answer
			return o.jsonDoc(v, line)
		case "resourceMetrics", "resourceLogs", "resourceProfiles":
			return record.FieldErr(line, key, "this is an OTLP %s export; only traces (resourceSpans) are read", strings.TrimPrefix(key, "resource"))
		}
		return nil
	})
}

func (o *otlpRows) jsonResourceSpans(raw json.RawMessage, line int64) error {
	var res resourcepb.Resource
	var scopes []record.RawAt
	err := record.WalkObject(raw, line, func(key string, v json.RawMessage, line int64) error {
		switch key {
		case "resource":
			if err := otlpJSONOpts.Unmarshal(v, &res); err != nil {
				return record.FieldErr(line, "resource", "%s", protoMsg(err))
			}
		case "scopeSpans", "scope_spans", "instrumentationLibrarySpans", "instrumentation_library_spans":
			scopes = append(scopes, record.RawAt{Raw: v, Line: line})
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The resource may follow its spans in the document: spans are read
	// once the resource is known.
	info := newOtlpResource(&res)
	for _, s := range scopes {
		err := record.WalkArray(s.Raw, s.Line, "scopeSpans", func(raw json.RawMessage, line int64) error {
			return o.jsonScopeSpans(raw, line, info)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (o *otlpRows) jsonScopeSpans(raw json.RawMessage, line int64, res otlpResource) error {
	var scope commonpb.InstrumentationScope
	var spans []record.RawAt
	err := record.WalkObject(raw, line, func(key string, v json.RawMessage, line int64) error {
		switch key {
		case "scope", "instrumentationLibrary", "instrumentation_library":
			if err := otlpJSONOpts.Unmarshal(v, &scope); err != nil {
				return record.FieldErr(line, key, "%s", protoMsg(err))
			}
		case "spans":
			spans = append(spans, record.RawAt{Raw: v, Line: line})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, s := range spans {
		err := record.WalkArray(s.Raw, s.Line, "spans", func(raw json.RawMessage, line int64) error {
			var sp tracepb.Span
			if err := otlpJSONOpts.Unmarshal(raw, &sp); err != nil {
				return record.LineErr(line, "bad span: %s", protoMsg(err))
			}
			return o.span(&sp, res, &scope, line)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// protoMsgPrefix is protojson's error prefix: "proto:", a space it picks at
// random among two, and a position within the span's own text.
var protoMsgPrefix = regexp.MustCompile(`^proto:[\s\x{00a0}]*(\(line \d+:\d+\):[\s\x{00a0}]*)?`)

func protoMsg(err error) string { return protoMsgPrefix.ReplaceAllString(err.Error(), "") }
