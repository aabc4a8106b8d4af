package ingest

import "errors"

// FormatGatling names the Gatling 3.x text simulation.log.
const FormatGatling = "gatling"

// detectGatling tells a gatling file from its first bytes.
func detectGatling(name string, head []byte) bool { return false }

// decodeGatling decodes a gatling file into canonical rows.
func decodeGatling(in *input, c *collector) (produce, error) {
	return nil, errors.New("gatling: not implemented yet")
}
