package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rewind-dev/rewind/dataset"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// dbFlags are the flags every command that reads the database shares.
type dbFlags struct {
	db         string
	dataset    string // read this Parquet dataset in place instead of db
	experiment string
	format     string
	opts       openFlags
}

func (d *dbFlags) add(fs *pflag.FlagSet, withFormat bool) {
	fs.StringVar(&d.db, "db", store.DefaultDB, "database file")
	fs.StringVar(&d.dataset, "dataset", "", "read the Parquet dataset in `DIR` in place instead of a database (rewind export and rewind ingest --dataset write one)")
	fs.StringVarP(&d.experiment, "experiment", "e", "", "experiment (may be left out when the database holds one)")
	if withFormat {
		fs.StringVarP(&d.format, "format", "f", "table", formatHelp)
	}
	d.opts.add(fs)
}

func (d *dbFlags) checkFormat() error { return checkRowFormat(d.format) }

// openRead opens the database read-only (and sandboxed: see analyze.OpenWith).
// With --dataset it reads the dataset in place, sandboxed alike.
func (d *dbFlags) openRead(ctx context.Context) (*store.DB, error) {
	if d.dataset == "" {
		return d.opts.open(ctx, d.db, false)
	}
	if d.opts.fs != nil && d.opts.fs.Changed("db") {
		return nil, usagef("--db and --dataset: read one of them")
	}
	if err := d.opts.check(); err != nil {
		return nil, err
	}
	return dataset.Open(ctx, d.dataset, d.opts.options(store.Memory))
}

// noDataset refuses --dataset where the command writes the database.
func (d *dbFlags) noDataset(what string) error {
	if d.dataset != "" {
		return usagef("--dataset with %s: a dataset is read, not written, here; give --db", what)
	}
	return nil
}

// openFlags are the flags of every command that opens the database: how
// long to wait for another process's lock, and DuckDB's memory.
type openFlags struct {
	wait        time.Duration
	memoryLimit string
	tempDir     string
	fs          *pflag.FlagSet // the command line, for the Try line of a lock error
}

func (o *openFlags) add(fs *pflag.FlagSet) {
	o.fs = fs
	fs.DurationVar(&o.wait, "wait", 0, "when another process holds the database, retry opening it for up to `DURATION` (e.g. 30s) instead of failing")
	fs.StringVar(&o.memoryLimit, "memory-limit", "", "DuckDB's memory limit, a `SIZE` such as 2GB or 512MiB; past it DuckDB spills to --temp-dir (default: the smaller of 4 GiB and half the RAM)")
	fs.StringVar(&o.tempDir, "temp-dir", "", "spill to `DIR` what does not fit in the memory limit (default: <db>.tmp when writing; when reading, <db>.tmp-PID beside the database, or $TMPDIR/rewind-PID where that directory is read-only)")
}

// open opens the database with the flags' settings; errors a user can act on
// get a Try line.
func (o *openFlags) open(ctx context.Context, path string, writable bool) (*store.DB, error) {
	mode := store.Read
	if writable {
		mode = store.Write
	}
	return o.openMode(ctx, path, mode)
}

// openMode opens the database in a given mode, as open does.
func (o *openFlags) openMode(ctx context.Context, path string, mode store.Mode) (*store.DB, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, path, o.options(mode))
	var le *store.LockedError
	switch {
	case err == nil:
		return db, nil
	case errors.As(err, &le):
		return nil, hinted{err, rerun(o.fs, "wait", shortDuration(longerWait(o.wait)))}
	case errors.Is(err, store.ErrNoDatabase):
		return nil, hinted{err, "rewind ingest --db " + path + " FILE"}
	}
	return nil, err
}

// check checks the flags' values.
func (o *openFlags) check() error {
	if o.wait < 0 {
		return usagef("--wait %s: want a duration of 0 or more", o.wait)
	}
	if o.memoryLimit != "" {
		if _, err := store.CheckMemoryLimit(o.memoryLimit); err != nil {
			return usagef("--memory-limit %v", err)
		}
	}
	return nil
}

func (o *openFlags) options(mode store.Mode) store.Options {
	return store.Options{Mode: mode, MemoryLimit: o.memoryLimit, TempDir: o.tempDir, Wait: o.wait}
}

// longerWait is the --wait a Try line suggests.
func longerWait(w time.Duration) time.Duration {
	if w < time.Minute {
		return time.Minute
	}
	return 2 * w
}

// explain adds a Try line to errors a user can fix with a flag.
func explain(err error, cmd string) error {
	var amb *store.AmbiguousError
	if errors.As(err, &amb) {
		return hinted{err, fmt.Sprintf("%s --experiment %s", cmd, amb.Hint())}
	}
	if errors.Is(err, store.ErrNoExperiment) {
		return hinted{err, "rewind ingest FILE"}
	}
	if by := explainBy(err, cmd); by != nil {
		return by
	}
	var se *hypothesis.SidesError
	if errors.As(err, &se) && se.Try != nil {
		return hinted{err, cmd + " " + flagArgs(se.Try)}
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

// addWindow adds --window, as the commands that window a recorded
// experiment take it; windowFlag reads it.
func addWindow(fs *pflag.FlagSet, window *string) {
	fs.StringVar(window, "window", "", "window: requests (40) or a duration (1s) (default: the stored window)")
}

func windowFlag(s string) (hypothesis.Window, error) {
	if s == "" {
		return hypothesis.Window{}, nil
	}
	w, err := hypothesis.ParseWindow(s)
	if err != nil {
		return w, usageError{err}
	}
	return w, nil
}
