package ingest

import "errors"

// FormatK6CSV names the k6 run --out csv.
const FormatK6CSV = "k6-csv"

// detectK6csv tells a k6-csv file from its first bytes.
func detectK6csv(name string, head []byte) bool { return false }

// decodeK6csv decodes a k6-csv file into canonical rows.
func decodeK6csv(in *input, c *collector) (produce, error) {
	return nil, errors.New("k6-csv: not implemented yet")
}
