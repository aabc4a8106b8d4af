package record

import (
	"fmt"

	"github.com/rewind-dev/rewind/internal/param"
)

// LineError is a bad value in an input file. Its text is the contract the
// README documents: `file:line: field "x": message`.
//
// A message that names an ingest parameter (map, log-format, max-record)
// names it in the library's words; param.Say renders it in a caller's
// (the CLI's --flags), as for every param.Error.
type LineError struct {
	File  string
	Line  int64 // 1-based; 0 when the error is about the file as a whole
	Field string
	Msg   string       // the message, parameters named as the library does
	text  *param.Error // Msg with its parameters marked, when it names any
}

func (e *LineError) Error() string { return e.Say(func(p string) string { return p }) }

// Say is the error with its parameters named as name says.
func (e *LineError) Say(name func(param string) string) string {
	msg := e.Msg
	if e.text != nil {
		msg = e.text.Say(name)
	}
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: field %q: %s", loc, e.Field, msg)
	}
	return fmt.Sprintf("%s: %s", loc, msg)
}

// FieldErr is a bad field of a line. format is fmt's, with the parameters
// it names written {name} (param.Errorf's rule).
func FieldErr(line int64, field, format string, a ...any) *LineError {
	text := param.Textf(format, a...)
	return &LineError{Line: line, Field: field, Msg: text.Error(), text: text}
}

// LineErr is a bad line, or a bad file at line 0; format as fieldErr's.
func LineErr(line int64, format string, a ...any) *LineError {
	return FieldErr(line, "", format, a...)
}

// OutOfRange is the message of a whole number outside lo..hi.
func OutOfRange(v, lo, hi int64) string {
	return fmt.Sprintf("out of range %d (want %d..%d)", v, lo, hi)
}
