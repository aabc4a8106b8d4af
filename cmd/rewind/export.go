package main

import (
	"context"
	"fmt"

	"github.com/rewind-dev/rewind/dataset"
	"github.com/rewind-dev/rewind/store"
)

const exportUsage = `Usage: rewind export [flags] DIR

Write the database's tables as a Parquet dataset in DIR (a folder that does
not exist or is empty): requests partitioned by experiment and run
(requests/experiment=E/run=R/part-ID.parquet), events by experiment, and
runs, files, run_gaps and experiments (with their stored parameters) beside
them, plus the manifest _rewind.json (schema version, rows and SHA-256 of
every part, the parameters). docs/dataset.md describes every column, so
other pipelines can write a dataset too. The dataset is written beside DIR
and renamed into place whole: a failed export leaves none.

A dataset is read in place by every analysis, replay and report with
--dataset DIR, and loads into a database with rewind ingest DIR.

Examples:
  rewind export --db rewind.duckdb logs.dataset
  rewind export --experiment gunluk gunluk.dataset
  rewind analyze falsification --dataset gunluk.dataset`

func init() {
	register(command{name: "export", summary: "write the database as a Parquet dataset", run: runExport})
}

func runExport(ctx context.Context, e *env, args []string) error {
	var db, experiment string
	var open openFlags
	fs := newFlags(e, "export", exportUsage)
	fs.StringVar(&db, "db", store.DefaultDB, "database file")
	fs.StringVarP(&experiment, "experiment", "e", "", "export this experiment alone (default: all)")
	open.add(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{hinted{fmt.Errorf("want one folder to write the dataset into, got %d arguments", fs.NArg()), "rewind export --db " + db + " DIR"}}
	}
	d, err := open.openMode(ctx, db, store.Export)
	if err != nil {
		return err
	}
	defer d.Close()
	sum, err := dataset.Export(ctx, d, fs.Arg(0), experiment)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: %d requests, %d events, %d runs, %d files in %d parts\n", fs.Arg(0),
		sum.Tables["requests"].Rows, sum.Tables["events"].Rows, sum.Tables["runs"].Rows, sum.Tables["files"].Rows, sum.PartCount())
	return nil
}
