package ingest

import (
	"errors"
	"fmt"
	"io/fs"
)

// LineError is a bad value in an input file. Its text is the contract the
// README documents: `file:line: field "x": message`.
type LineError struct {
	File  string
	Line  int64 // 1-based; 0 when the error is about the file as a whole
	Field string
	Msg   string
}

func (e *LineError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: field %q: %s", loc, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

func fieldErr(line int64, field, format string, a ...any) *LineError {
	return &LineError{Line: line, Field: field, Msg: fmt.Sprintf(format, a...)}
}

func lineErr(line int64, format string, a ...any) *LineError {
	return &LineError{Line: line, Msg: fmt.Sprintf(format, a...)}
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
