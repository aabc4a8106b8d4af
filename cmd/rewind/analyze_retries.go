package main

import (
	"context"
	"errors"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

const retriesUsage = `Usage: rewind analyze retries [flags]

Retry strategies compared, one row per run: requests (attempts sent),
first_attempts, retries, budget_denied (failed attempts a retry budget did
not retry), affected_ops (operations whose first attempt started in the
affected interval [FROM, TO)), affected_success (share of those with an ok
attempt), p95_ms and p99_ms of operation latency (first send to the end of
the last attempt, over all operations). An operation is the attempts of a
run sharing req; attempt 0 is its first. --by gives the same per run and
group (docs/by.md).

Examples:
  rewind sim retry --out retry.ndjson && rewind ingest retry.ndjson
  rewind analyze retries
  rewind analyze retries --affected 8.5s..15s --format json
  rewind analyze retries --by name`

func init() {
	registerAnalysis(analysisCommand{name: "retries", summary: "retry strategies: load, budget, affected success, latency", run: runRetries})
}

func runRetries(ctx context.Context, e *env, args []string) error {
	var o analyze.RetriesOptions
	var affected string
	a, fs := newAnalysis(e, "retries", retriesUsage, &o.Experiment)
	fs.StringVar(&affected, "affected", "", "FROM..TO, durations such as 8.5s..15s or plain ms (default: the stored affected_from_ms..affected_to_ms)")
	addBy(fs, &o.By)
	if err := a.parse(args); err != nil {
		return err
	}
	if affected != "" {
		span, err := hypothesis.ParseSpan(affected)
		if err != nil {
			return usageError{hinted{err, "rewind analyze retries --affected 8.5s..15s"}}
		}
		o.Affected = span
	}
	a.eng.remote = one(func(r *analyze.Remote) (*analyze.Result, error) { return analyze.RetriesOn(r, o) })
	err := a.run(ctx, func(q store.Querier) (*analyze.Result, error) {
		return analyze.Retries(q, o)
	})
	if errors.Is(err, analyze.ErrNoAffected) {
		try := "rewind analyze retries"
		if o.Experiment != "" {
			try += " --experiment " + o.Experiment
		}
		return hinted{err, try + " --affected 8.5s..15s"}
	}
	return err
}
