package ingest

import "errors"

// FormatOTLP names the OpenTelemetry traces: OTLP/JSON (resourceSpans) or OTLP protobuf.
const FormatOTLP = "otlp"

// detectOtlp tells a otlp file from its first bytes.
func detectOtlp(name string, head []byte) bool { return false }

// decodeOtlp decodes a otlp file into canonical rows.
func decodeOtlp(in *input, c *collector) (produce, error) {
	return nil, errors.New("otlp: not implemented yet")
}
