package ingest

import "errors"

// FormatChaosToolkit names the Chaos Toolkit journal.json (actions and probes become events).
const FormatChaosToolkit = "chaostoolkit"

// detectChaostoolkit tells a chaostoolkit file from its first bytes.
func detectChaostoolkit(name string, head []byte) bool { return false }

// decodeChaostoolkit decodes a chaostoolkit file into canonical rows.
func decodeChaostoolkit(in *input, c *collector) (produce, error) {
	return nil, errors.New("chaostoolkit: not implemented yet")
}
