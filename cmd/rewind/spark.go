package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/engine"
	rpt "github.com/rewind-dev/rewind/report"
)

// engineFlags are --spark of an analysis: run its per-request work on a
// Spark cluster over the dataset --dataset names (docs/scale.md), which the
// cluster reads; without --spark, --dataset is read in place (dbFlags).
type engineFlags struct {
	spark   string
	timeout time.Duration // --spark-timeout: each reduce step's deadline
	// remote is the analysis on an engine; nil for an analysis that has
	// no reduce steps yet, which --spark refuses.
	remote func(*analyze.Remote) (first, second *analyze.Result, err error)
}

func (f *engineFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.spark, "spark", "", "run the per-request work on the Spark cluster whose Spark Connect server is at `URL` (sc://HOST:PORT), over --dataset (a path the cluster reads: local, s3a://, gs://, hdfs://)")
	fs.DurationVar(&f.timeout, "spark-timeout", defaultSparkTimeout, "with --spark, each reduce step's deadline, a `DURATION` (opening the session's too): a step past it is interrupted on the cluster and fails (0: none)")
}

// defaultSparkTimeout is --spark-timeout's default: far past any step
// measured (docs/scale.md's cost model: the slowest analysis at 100 M rows,
// every step together, took under 4 minutes on one worker), short of a
// wait without end on a cluster that lost the job.
const defaultSparkTimeout = 30 * time.Minute

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
		return explainDeadline(explain(err, "rewind analyze "+name))
	}
	return printTwo(e, first, second, format)
}

// open opens the engine and the dataset at path on it, each step within
// --spark-timeout.
func (f *engineFlags) open(ctx context.Context, path string) (*analyze.Remote, *engine.Spark, error) {
	if f.timeout < 0 {
		return nil, nil, usagef("--spark-timeout %s: want a positive duration, or 0 for none", f.timeout)
	}
	var eng *engine.Spark
	err := engine.WithDeadline(ctx, f.timeout, "open (the Spark Connect session)", func(ctx context.Context) error {
		var err error
		eng, err = engine.OpenSpark(ctx, f.spark)
		return err
	})
	if err != nil {
		return nil, nil, explainDeadline(err)
	}
	r, err := analyze.OpenRemote(ctx, eng, path, f.timeout)
	if err != nil {
		eng.Close()
		return nil, nil, explainDeadline(err)
	}
	return r, eng, nil
}

// explainDeadline says how to give a step past --spark-timeout more time.
func explainDeadline(err error) error {
	var de *engine.DeadlineError
	if errors.As(err, &de) {
		return fmt.Errorf("%w; give it more time with --spark-timeout DURATION (0: none)", err)
	}
	return err
}

// stats prints what the engine did, for bench/spark.sh.
func stats(e *env, eng *engine.Spark) {
	if os.Getenv("REWIND_SPARK_STATS") != "" {
		st := eng.Stats()
		fmt.Fprintf(e.stderr, "spark: %d reduce steps, %d bytes of Arrow pulled\n", st.Steps, st.Bytes)
	}
}

// report builds the report on the Spark cluster over --dataset and prints
// or writes it as the local report is (nothing, when a step fails).
func (f *engineFlags) report(ctx context.Context, e *env, o *reportOptions) error {
	r, eng, err := f.open(ctx, o.db.dataset)
	if err != nil {
		return err
	}
	defer r.Close()
	defer stats(e, eng)
	return explainDeadline(writeReport(ctx, e, o, func(lib rpt.Options) (rpt.Document, error) { return rpt.BuildOn(r, lib) }))
}
