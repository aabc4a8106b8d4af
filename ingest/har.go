package ingest

import "errors"

// FormatHAR names the HAR 1.2 (browser network export).
const FormatHAR = "har"

// detectHar tells a har file from its first bytes.
func detectHar(name string, head []byte) bool { return false }

// decodeHar decodes a har file into canonical rows.
func decodeHar(in *input, c *collector) (produce, error) {
	return nil, errors.New("har: not implemented yet")
}
