// Package engine runs the per-request work of an analysis on a cluster
// (docs/scale.md): an Engine reads a rewind dataset where it lies, runs one
// SQL reduce step at a time and hands back its result, aggregates only, as
// Arrow. What comes back is loaded into rewind's in-memory DuckDB (Load),
// where the library finishes the analysis. Spark, through Spark Connect, is
// the one engine today; the interface is what a second one (Trino) would
// implement.
package engine

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Engine is a SQL engine over a registered dataset.
type Engine interface {
	// Register makes the dataset at dir readable as the views requests,
	// runs, experiments and files (dir is a path the engine reads: local, s3a://,
	// gs://, hdfs://).
	Register(ctx context.Context, dir string) error
	// Reduce runs one query in the engine's dialect and returns its whole
	// result. A nil table with a nil error is a result without rows.
	Reduce(ctx context.Context, sql string) (arrow.Table, error)
	// Close ends the session.
	Close() error
	// Name is the engine as a user knows it ("Spark").
	Name() string
}

// MaxResult is the largest result a reduce step may bring back: gRPC's
// default receive cap of 4 MiB a message, which the Spark client does not
// raise. A reduce step returns aggregates, so a larger result is a bug in
// the step (or a dataset far outside what it was planned for).
const MaxResult = 4 << 20

// TooLargeError is a result that did not fit MaxResult.
type TooLargeError struct {
	Step string // the reduce step's name
	Err  error
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("reduce step %s: its result is larger than %d MiB, the most the Spark client receives (a step returns aggregates only): %v",
		e.Step, MaxResult>>20, e.Err)
}

func (e *TooLargeError) Unwrap() error { return e.Err }
