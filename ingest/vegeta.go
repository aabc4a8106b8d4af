package ingest

import "errors"

// FormatVegeta names the Vegeta results: binary (vegeta attack), vegeta encode --to json, or its 12-column CSV.
const FormatVegeta = "vegeta"

// detectVegeta tells a vegeta file from its first bytes.
func detectVegeta(name string, head []byte) bool { return false }

// decodeVegeta decodes a vegeta file into canonical rows.
func decodeVegeta(in *input, c *collector) (produce, error) {
	return nil, errors.New("vegeta: not implemented yet")
}
