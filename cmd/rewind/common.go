package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rewind-dev/rewind/analyze"
)

// dbFlags are the flags every command that reads the database shares.
type dbFlags struct {
	db         string
	experiment string
	format     string
}

func (d *dbFlags) add(fs *pflag.FlagSet, withFormat bool) {
	fs.StringVar(&d.db, "db", analyze.DefaultDB, "database file")
	fs.StringVarP(&d.experiment, "experiment", "e", "", "experiment (may be left out when the database holds one)")
	if withFormat {
		fs.StringVarP(&d.format, "format", "f", "table", "output format: table, json or csv")
	}
}

func (d *dbFlags) checkFormat() error {
	for _, f := range analyze.Formats {
		if d.format == f {
			return nil
		}
	}
	return usagef("--format %q: want table, json or csv", d.format)
}

// openRead opens the database read-only.
func (d *dbFlags) openRead(ctx context.Context) (*sql.DB, error) {
	db, err := analyze.Open(ctx, d.db, false)
	if err != nil {
		return nil, hinted{err, "rewind ingest --db " + d.db + " FILE"}
	}
	return db, nil
}

// explain adds a Try line to errors a user can fix with a flag.
func explain(err error, cmd string) error {
	var amb *analyze.AmbiguousError
	if errors.As(err, &amb) {
		return hinted{err, fmt.Sprintf("%s --experiment %s", cmd, amb.Names[0])}
	}
	if errors.Is(err, analyze.ErrNoExperiment) {
		return hinted{err, "rewind ingest FILE"}
	}
	return err
}

// floatList parses "0,0.05,0.1".
func floatList(flag, s string) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, usagef("--%s %q: want numbers separated by commas", flag, s)
		}
		out = append(out, f)
	}
	return out, nil
}

// intList parses "1,2,3".
func intList(flag, s string) ([]int64, error) {
	var out []int64
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil {
			return nil, usagef("--%s %q: want integers separated by commas", flag, s)
		}
		out = append(out, n)
	}
	return out, nil
}

func windowFlag(s string) (analyze.Window, error) {
	if s == "" {
		return analyze.Window{}, nil
	}
	w, err := analyze.ParseWindow(s)
	if err != nil {
		return w, usageError{err}
	}
	return w, nil
}
