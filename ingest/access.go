package ingest

import "errors"

// FormatAccess names the JSON access logs (Envoy default JSON, nginx log_format escape=json).
const FormatAccess = "access"

// detectAccess tells a access file from its first bytes.
func detectAccess(name string, head []byte) bool { return false }

// decodeAccess decodes a access file into canonical rows.
func decodeAccess(in *input, c *collector) (produce, error) {
	return nil, errors.New("access: not implemented yet")
}
