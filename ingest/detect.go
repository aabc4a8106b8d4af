package ingest

import (
	"github.com/rewind-dev/rewind/ingest/record"
)

// Names of the formats rewind reads (see the formats table).
const (
	formatNDJSON = "ndjson" // canonical NDJSON (.ndjson, .jsonl)
	formatJSON   = "json"   // a JSON array of canonical records
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
