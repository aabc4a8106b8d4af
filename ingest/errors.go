package ingest

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/rewind-dev/rewind/ingest/record"
)

// FieldError is a bad field of a line of file, for a reader outside this
// package (replay's follower) that speaks in ingest's terms; format as
// fieldErr's.
func FieldError(file string, line int64, field, format string, a ...any) *LineError {
	e := record.FieldErr(line, field, format, a...)
	e.File = file
	return e
}

// withFile names the file in a LineError, or prefixes any other error with it.
func withFile(path string, err error) error {
	var le *LineError
	if errors.As(err, &le) {
		c := *le
		c.File = path
		return &c
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return err // already names the file
	}
	return fmt.Errorf("%s: %w", path, err)
}

// LineError is a bad value in an input file (record.LineError: the formats
// make them, the ingest names the file).
type LineError = record.LineError
