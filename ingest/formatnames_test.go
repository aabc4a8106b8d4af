package ingest

// The names of the canonical formats, which live in their own packages
// (ingest/format/ndjson, ingest/format/csv), as this package's tests name
// them: the pipeline itself knows no format by name.
const (
	FormatNDJSON = "ndjson"
	FormatJSON   = "json"
	FormatCSV    = "csv"
)
