// Package param is the error of a library call given a bad parameter: it
// names the parameter in the library's words (baseline-until, margin), and
// a caller with other words for them (the CLI's --flags) renders the same
// message in its own.
package param

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Error is a bad parameter. Its format names parameters as {name}; only
// the format does, so a value given (an argument) is never rewritten.
type Error struct {
	Param  string // the parameter at fault
	format string
	args   []any
}

// Errorf is an Error of param: format is fmt's, with every parameter it
// names written {name}, e.g. Errorf("window", "{window} %s: too short", w).
func Errorf(param, format string, args ...any) *Error {
	return &Error{Param: param, format: format, args: args}
}

var named = regexp.MustCompile(`\{([a-z][a-z0-9-]*)\}`)

// Error names the parameters as the library does.
func (e *Error) Error() string { return e.Say(func(p string) string { return p }) }

// Say is the message with every parameter written as name says, the
// parameters of wrapped Errors too.
func (e *Error) Say(name func(param string) string) string {
	format := named.ReplaceAllStringFunc(e.format, func(m string) string {
		return name(m[1 : len(m)-1])
	})
	args := make([]any, len(e.args))
	for i, a := range e.args {
		args[i] = a
		if err, ok := a.(error); ok {
			args[i] = said{err, name}
		}
	}
	return fmt.Errorf(format, args...).Error()
}

// Params lists the parameters the message names, in order.
func (e *Error) Params() []string {
	var ps []string
	for _, m := range named.FindAllStringSubmatch(e.format, -1) {
		ps = append(ps, m[1])
	}
	return ps
}

// Unwrap is the error wrapped with %w, if any.
func (e *Error) Unwrap() error { return errors.Unwrap(fmt.Errorf(e.format, e.args...)) }

// said renders a wrapped error with the caller's names where it holds an
// Error.
type said struct {
	err  error
	name func(string) string
}

func (s said) Error() string { return Say(s.err, s.name) }
func (s said) Unwrap() error { return s.err }

// Sayer is an error that can name its parameters as a caller says: an
// Error, or a library's own error type (ingest's file:line error) that
// holds one.
type Sayer interface {
	error
	Say(name func(param string) string) string
}

// Say is err's message with the parameters of the first Sayer in its chain
// written as name says: the Sayer's own text is replaced inside the
// wrappers' text, which quote it whole.
func Say(err error, name func(param string) string) string {
	msg := err.Error()
	var s Sayer
	if !errors.As(err, &s) {
		return msg
	}
	before, after, ok := strings.Cut(msg, s.Error())
	if !ok {
		return msg
	}
	return before + s.Say(name) + after
}

// Textf is a message that is not a fault (a warning, a reason a file was
// skipped) written as an Error, so that it names parameters the same way.
func Textf(format string, args ...any) *Error { return Errorf("", format, args...) }

// Arg is a parameter and a value for it: one part of a call that works,
// for a caller to show in its own words.
type Arg struct{ Param, Value string }
