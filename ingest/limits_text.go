package ingest

import "github.com/rewind-dev/rewind/ingest/record"

// RecordTooLong is the error of a record past the cap, for a reader outside
// this package (replay's follower, under watch) that applies the cap.
func RecordTooLong(file string, line, max int64) *LineError {
	if max <= 0 {
		max = DefaultMaxRecord
	}
	return FieldError(file, line, "", "record longer than %s: {max-record} raises the cap", record.SizeText(max))
}
