package ingest

import (
	"sync"

	"github.com/rewind-dev/rewind/ingest/record"
)

// Attempt is what one line of a canonical NDJSON log says, as much as a
// consumer that reads a log line by line (rewind watch) needs
// (record.Attempt).
type Attempt = record.Attempt

// DecodeLine decodes one line (1-based number line, used in errors) of a
// canonical NDJSON log, by the registry's line decoder (record.LineDecoder:
// the ndjson format's), the same code that ingests such a log, so both
// accept and refuse the same lines. It returns true for a request line; for
// a run record it returns false with Run and Role filled, for other
// records false. Errors are *LineError without a file name: the caller adds
// it. A request line must name its outcome unless it gives a count, as in
// an ingest.
func DecodeLine(b []byte, line int64) (Attempt, bool, error) {
	return lineDecoder().DecodeLine(b, line)
}

// lineDecoder is the first format of the registry that decodes a line
// alone.
var lineDecoder = sync.OnceValue(func() record.LineDecoder {
	for _, f := range formats {
		if d, ok := f.(record.LineDecoder); ok {
			return d
		}
	}
	panic("ingest: no format of the registry decodes a line alone")
})
