package ingest

import "errors"

// FormatK6 names the k6 run --out json (NDJSON of Metric/Point records).
const FormatK6 = "k6"

// detectK6 tells a k6 file from its first bytes.
func detectK6(name string, head []byte) bool { return false }

// decodeK6 decodes a k6 file into canonical rows.
func decodeK6(in *input, c *collector) (produce, error) {
	return nil, errors.New("k6: not implemented yet")
}
