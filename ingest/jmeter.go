package ingest

import "errors"

// FormatJMeter names the JMeter .jtl results, CSV with a header or XML.
const FormatJMeter = "jmeter"

// detectJmeter tells a jmeter file from its first bytes.
func detectJmeter(name string, head []byte) bool { return false }

// decodeJmeter decodes a jmeter file into canonical rows.
func decodeJmeter(in *input, c *collector) (produce, error) {
	return nil, errors.New("jmeter: not implemented yet")
}
