package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/spf13/pflag"
)

// addBy gives an analysis that makes per-run rows its --by flag
// (docs/by.md): the same numbers per run and group.
func addBy(fs *pflag.FlagSet, by *[]string) {
	fs.StringSliceVar(by, "by", nil, "rows per run and group of the values of `FIELD[,FIELD]`: columns (status, status_class, outcome) or attrs keys (method, name, url, a k6 tag); see docs/by.md")
}

// explainBy suggests the field a mistyped --by most likely meant.
func explainBy(err error, cmd string) error {
	var fe *analyze.FieldError
	if !errors.As(err, &fe) {
		return nil
	}
	s := suggest(fe.Field, fe.Known)
	if fe.Exp == "" || s == "" {
		return usageError{err}
	}
	fields := slices.Clone(fe.Fields)
	fields[slices.Index(fields, fe.Field)] = s
	return usageError{hinted{fmt.Errorf("%w; did you mean %q?", err, s), cmd + " --by " + shellJoin([]string{strings.Join(fields, ",")})}}
}
