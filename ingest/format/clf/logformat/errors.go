package logformat

import (
	"errors"
	"fmt"
	"regexp"
)

// Error is a refusal of a format line. Format is fmt's and names the
// parameters it suggests as {name} (the flag that chooses a server is
// {server}), for a caller to write in its own words; Error writes them
// bare.
type Error struct {
	Format string
	Args   []any
}

var paramName = regexp.MustCompile(`\{([a-z][a-z0-9-]*)\}`)

func (e *Error) Error() string {
	return fmt.Sprintf(paramName.ReplaceAllString(e.Format, "$1"), e.Args...)
}

func errorf(format string, args ...any) *Error { return &Error{Format: format, Args: args} }

// prefixed is err with the format line it is about before it.
func prefixed(s string, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return &Error{Format: "log format %q: " + e.Format, Args: append([]any{s}, e.Args...)}
	}
	return errorf("log format %q: %s", s, err.Error())
}
