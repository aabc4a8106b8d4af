package ingest

import (
	"bytes"

	"github.com/rewind-dev/rewind/ingest/record"
)

// Names of the formats rewind reads (see the formats table).
const (
	FormatNDJSON = "ndjson" // canonical NDJSON (.ndjson, .jsonl)
	FormatJSON   = "json"   // a JSON array of canonical records
	FormatCSV    = "csv"    // CSV with a header row
)

// The detection of the formats named above, one function each as the other
// formats' files have theirs.

func detectJSONArray(_ string, head []byte) bool {
	t := record.JSONText(head)
	return len(t) > 0 && t[0] == '['
}

func detectNDJSON(name string, head []byte) bool {
	t := record.JSONText(head)
	return len(t) > 0 && t[0] == '{' || record.HasExt(name, ".ndjson", ".jsonl", ".json")
}

func detectCSV(name string, head []byte) bool {
	return record.HasExt(name, ".csv", ".tsv") || looksLikeCSVHeader(record.JSONText(head))
}

func looksLikeCSVHeader(text []byte) bool {
	line, _, _ := bytes.Cut(text, []byte("\n"))
	return bytes.Contains(line, []byte(",")) && bytes.Contains(line, []byte("outcome"))
}
