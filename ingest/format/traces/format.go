// Package traces reads distributed traces as requests: OpenTelemetry's
// OTLP (JSON or protobuf), Jaeger's JSON and Zipkin v2 JSON. Jaeger's and
// Zipkin's spans are read as OTLP spans, so one span gives the same row
// from either export.
package traces

import "github.com/rewind-dev/rewind/ingest/record"

// OTLP is OpenTelemetry's trace export as a record.Format.
type OTLP struct{}

func (OTLP) Name() string { return OTLPName }
func (OTLP) About() string {
	return "OpenTelemetry traces: OTLP/JSON (resourceSpans) or OTLP protobuf"
}
func (OTLP) Detect(name string, head []byte) bool { return detectOtlp(name, head) }
func (OTLP) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeOtlp(in, out)
}

// Jaeger is Jaeger's JSON as a record.Format.
type Jaeger struct{}

func (Jaeger) Name() string { return JaegerName }
func (Jaeger) About() string {
	return "Jaeger JSON traces: the UI's Download JSON or the query API ({\"data\": [trace]}), or one trace"
}
func (Jaeger) Detect(name string, head []byte) bool { return detectJaeger(name, head) }
func (Jaeger) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeJaeger(in, out)
}

// Zipkin is Zipkin v2 JSON as a record.Format.
type Zipkin struct{}

func (Zipkin) Name() string { return ZipkinName }
func (Zipkin) About() string {
	return "Zipkin v2 JSON spans (an array of spans, as /api/v2/trace returns)"
}
func (Zipkin) Detect(name string, head []byte) bool { return detectZipkin(name, head) }
func (Zipkin) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeZipkin(in, out)
}
