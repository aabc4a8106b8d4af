package ingest

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// Formats rewind reads. Detect picks one from content and extension.
const (
	FormatGunluk  = "gunluk"  // the chaos seed's gunluk.json
	FormatNDJSON  = "ndjson"  // canonical NDJSON (.ndjson, .jsonl)
	FormatJSON    = "json"    // a JSON array of canonical records
	FormatCSV     = "csv"     // CSV with a header row
	FormatParquet = "parquet" // Apache Parquet
	FormatArrow   = "arrow"   // Arrow IPC file or stream (.arrow, .feather, .arrows)
)

// Formats lists the accepted --from values.
var Formats = []string{FormatGunluk, FormatNDJSON, FormatJSON, FormatCSV, FormatParquet, FormatArrow}

// Detect names the format of a file from its first bytes and its name.
func Detect(path string, head []byte) (string, error) {
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		return FormatParquet, nil
	case bytes.HasPrefix(head, []byte("ARROW1")), bytes.HasPrefix(head, []byte{0xff, 0xff, 0xff, 0xff}):
		return FormatArrow, nil
	}
	text := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	ext := strings.ToLower(filepath.Ext(path))
	if len(text) > 0 && text[0] == '[' {
		return FormatJSON, nil
	}
	if len(text) > 0 && text[0] == '{' {
		if isGunluk(text) {
			return FormatGunluk, nil
		}
		return FormatNDJSON, nil
	}
	switch ext {
	case ".csv", ".tsv":
		return FormatCSV, nil
	case ".ndjson", ".jsonl", ".json":
		return FormatNDJSON, nil
	case ".parquet":
		return FormatParquet, nil
	case ".arrow", ".feather", ".arrows", ".ipc":
		return FormatArrow, nil
	}
	if looksLikeCSVHeader(text) {
		return FormatCSV, nil
	}
	return "", fmt.Errorf("unknown format (want one of %s; name it with --from)", strings.Join(Formats, ", "))
}

// isGunluk tells the seed's document from a canonical line: its first member
// is one of the document's keys, not a request column.
func isGunluk(text []byte) bool {
	for _, k := range []string{`"N"`, `"PENCERE"`, `"DENEY_BASI"`, `"kontrol"`, `"deney"`} {
		if bytes.HasPrefix(bytes.TrimLeft(text[1:], " \t\r\n"), []byte(k)) {
			return true
		}
	}
	return false
}

func looksLikeCSVHeader(text []byte) bool {
	line, _, _ := bytes.Cut(text, []byte("\n"))
	return bytes.Contains(line, []byte(",")) && bytes.Contains(line, []byte("outcome"))
}
