package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/engine"
	rpt "github.com/rewind-dev/rewind/report"
)

// engineFlags are --spark of an analysis: run its per-request work on a
// Spark cluster over the dataset --dataset names (docs/scale.md), which the
// cluster reads; without --spark, --dataset is read in place (dbFlags).
type engineFlags struct {
	spark string
	// remote is the analysis on an engine; nil for an analysis that has
	// no reduce steps yet, which --spark refuses.
	remote func(*analyze.Remote) (first, second *analyze.Result, err error)
}

func (f *engineFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.spark, "spark", "", "run the per-request work on the Spark cluster whose Spark Connect server is at `URL` (sc://HOST:PORT), over --dataset (a path the cluster reads: local, s3a://, gs://, hdfs://)")
}

// one is an analysis on an engine that prints one table.
func one(fn func(*analyze.Remote) (*analyze.Result, error)) func(*analyze.Remote) (*analyze.Result, *analyze.Result, error) {
	return func(r *analyze.Remote) (*analyze.Result, *analyze.Result, error) {
		res, err := fn(r)
		return res, nil, err
	}
}

// on says whether the analysis runs on an engine.
func (f *engineFlags) on() bool { return f.spark != "" }

// run runs the analysis name on the Spark cluster over the dataset at path
// and prints its result.
func (f *engineFlags) run(ctx context.Context, e *env, name, format, path string) error {
	if path == "" {
		return usagef("--spark reads a dataset: give --dataset PATH too")
	}
	if f.remote == nil {
		return &analyze.NotOnEngineError{Engine: "Spark", Analysis: name, Missing: "it has no reduce steps for Spark"}
	}
	r, eng, err := f.open(ctx, path)
	if err != nil {
		return err
	}
	defer r.Close()
	first, second, err := f.remote(r)
	stats(e, eng)
	if err != nil {
		return explain(err, "rewind analyze "+name)
	}
	return printTwo(e, first, second, format)
}

// open opens the engine and the dataset at path on it.
func (f *engineFlags) open(ctx context.Context, path string) (*analyze.Remote, *engine.Spark, error) {
	eng, err := engine.OpenSpark(ctx, f.spark)
	if err != nil {
		return nil, nil, err
	}
	r, err := analyze.OpenRemote(ctx, eng, path)
	if err != nil {
		eng.Close()
		return nil, nil, err
	}
	return r, eng, nil
}

// stats prints what the engine did, for bench/spark.sh.
func stats(e *env, eng *engine.Spark) {
	if os.Getenv("REWIND_SPARK_STATS") != "" {
		st := eng.Stats()
		fmt.Fprintf(e.stderr, "spark: %d reduce steps, %d bytes of Arrow pulled\n", st.Steps, st.Bytes)
	}
}

// report builds the report on the Spark cluster over --dataset and prints
// or writes it as the local report is.
func (f *engineFlags) report(ctx context.Context, e *env, o *reportOptions) error {
	r, eng, err := f.open(ctx, o.db.dataset)
	if err != nil {
		return err
	}
	defer r.Close()
	defer stats(e, eng)
	return writeReport(ctx, e, o, func(lib rpt.Options) (rpt.Document, error) { return rpt.BuildOn(r, lib) })
}
