package ingest

import "errors"

// FormatLocust names the Locust *_stats_history.csv (pre-binned per-second counts).
const FormatLocust = "locust"

// detectLocust tells a locust file from its first bytes.
func detectLocust(name string, head []byte) bool { return false }

// decodeLocust decodes a locust file into canonical rows.
func decodeLocust(in *input, c *collector) (produce, error) {
	return nil, errors.New("locust: not implemented yet")
}
