package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/rewind-dev/rewind/dataset"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/store"
)

// datasetArg is the dataset folder among ingest's arguments, when the one
// argument is one. A dataset among other arguments, or given to
// --dataset, is a usage error: its parts are not logs.
func datasetArg(args []string, converting bool) (string, bool, error) {
	for _, a := range args {
		switch {
		case !dataset.IsDataset(a):
		case converting:
			return "", false, usagef("%s is a dataset: --dataset converts logs; to load a dataset into a database: rewind ingest --db FILE %s", a, a)
		case len(args) > 1:
			return "", false, usagef("%s is a dataset: it loads alone, into a new database (rewind ingest --db FILE %s)", a, a)
		default:
			return a, true, nil
		}
	}
	return "", false, nil
}

// loadDataset loads a dataset into the database: it is loaded as it is, so
// the flags that name or join rows do not apply.
func loadDataset(ctx context.Context, e *env, fs *pflag.FlagSet, open *openFlags, db, dir string) (err error) {
	var named []string
	fs.Visit(func(f *pflag.Flag) {
		switch f.Name {
		case "db", "wait", "memory-limit", "temp-dir":
		default:
			named = append(named, "--"+f.Name)
		}
	})
	if len(named) > 0 {
		return usagef("%s with a dataset (%s): a dataset loads as it is, with its own experiments, runs and parameters", named[0], dir)
	}
	d, err := open.open(ctx, db, true)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			d.Discard()
		} else {
			err = d.Close()
		}
	}()
	n, err := dataset.Load(ctx, d, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: dataset, %d requests, %d events, %d runs, %d files\n", dir, n["requests"], n["events"], n["runs"], n["files"])
	return nil
}

// convertFiles is ingest --dataset: the files become parts of the dataset.
func convertFiles(ctx context.Context, e *env, fs *pflag.FlagSet, open *openFlags, opts ingest.Options, o ingestOptions) error {
	if fs.Changed("db") {
		return usagef("--db and --dataset: ingest writes one of them")
	}
	if err := open.check(); err != nil {
		return err
	}
	co := dataset.ConvertOptions{Ingest: opts, Wait: open.wait, Store: open.options(store.Write)}
	results, err := dataset.Convert(ctx, o.dataset, fs.Args(), co)
	if err != nil {
		return ingestError(fs, err)
	}
	return printIngested(e.stdout, e.stderr, results, o.format)
}
