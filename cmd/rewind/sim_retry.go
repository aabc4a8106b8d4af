package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/sim/retry"
)

func init() {
	registerSim(simCommand{name: "retry", summary: "E03-B: four retry strategies against a dependency that freezes", run: runSimRetry})
}

const simRetryUsage = `Usage: rewind sim retry [flags]

Simulates experiment E03-B on a virtual clock: clients call a dependency that
freezes, answers everything pending with 503 when it comes back, then serves
at reduced capacity. Strategy A retries at once, B backs off exponentially, C
adds full jitter, D adds a retry budget to C. Writes one canonical NDJSON log
with a run per strategy and prints a summary table. Same seed, same bytes.

With --real the same experiment runs on the wall clock instead: a net/http
dependency on 127.0.0.1 and real HTTP clients, under the same retry rules,
--time-scale times faster than the seed's timeline (t_ms stays on the seed's
scale). Real timing varies, so two real runs never give the same log.

Examples:
  rewind sim retry
  rewind sim retry --seed 7 -o e03b-seed7.ndjson
  rewind sim retry --strategies B,C --freeze-to 11s
  rewind sim retry --budget-ratio 0.2 --budget-window 2s --strategies D
  rewind sim retry --real --time-scale 5 -o e03b-real.ndjson
  rewind sim retry -o - 2>summary.txt | gzip > e03b.ndjson.gz`

type simRetryOptions struct {
	out        string
	strategies []string
	affected   string
	real       bool
	scale      float64
	cfg        retry.Config
}

func simRetryFlags(e *env, o *simRetryOptions) *pflag.FlagSet {
	c := &o.cfg
	*c = retry.DefaultConfig()
	fs := newFlags(e, "sim retry", simRetryUsage)
	fs.StringVarP(&o.out, "out", "o", "retry.ndjson", "log file; - writes the log to stdout and the table to stderr")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of think times and jitter")
	fs.StringSliceVar(&o.strategies, "strategies", []string{"A", "B", "C", "D"}, "strategies to run")
	fs.IntVar(&c.Clients, "clients", c.Clients, "clients, each a closed loop of operation then think time")
	fs.DurationVar(&c.ThinkMin, "think-min", c.ThinkMin, "shortest think time between a client's operations (uniform)")
	fs.DurationVar(&c.ThinkMax, "think-max", c.ThinkMax, "longest think time between a client's operations (uniform)")
	fs.DurationVar(&c.Duration, "duration", c.Duration, "no operation starts after this; the run ends when the last one ends")
	fs.DurationVar(&c.RTT, "rtt", c.RTT, "network round trip added to every answer")
	fs.IntVar(&c.Workers, "workers", c.Workers, "dependency workers")
	fs.DurationVar(&c.Service, "service", c.Service, "service time per request")
	fs.IntVar(&c.Queue, "queue", c.Queue, "requests that may wait; beyond that 503 at once")
	fs.DurationVar(&c.FreezeFrom, "freeze-from", c.FreezeFrom, "the dependency stops answering")
	fs.DurationVar(&c.FreezeTo, "freeze-to", c.FreezeTo, "the dependency answers all pending requests with 503")
	fs.Float64Var(&c.DegradedRPS, "degraded-rps", c.DegradedRPS, "capacity in req/s after the freeze")
	fs.DurationVar(&c.DegradedTo, "degraded-to", c.DegradedTo, "end of the reduced capacity")
	fs.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, "attempts per operation, the first included")
	fs.DurationVar(&c.AttemptTimeout, "attempt-timeout", c.AttemptTimeout, "a client gives up on an attempt after this")
	fs.DurationVar(&c.OpTimeout, "op-timeout", c.OpTimeout, "deadline of a logical operation")
	fs.DurationVar(&c.Base, "base", c.Base, "backoff before the first retry; doubles per retry")
	fs.DurationVar(&c.Cap, "cap", c.Cap, "longest backoff")
	fs.Float64Var(&c.BudgetRatio, "budget-ratio", c.BudgetRatio, "D: retries allowed per first attempt in the window")
	fs.DurationVar(&c.BudgetWindow, "budget-window", c.BudgetWindow, "D: sliding window of the retry budget")
	fs.StringVar(&o.affected, "affected", "8.5s..15s", "FROM..TO: operations starting here count for the success share")
	fs.BoolVar(&o.real, "real", false, "run against a real HTTP dependency on 127.0.0.1, on the wall clock")
	fs.Float64Var(&o.scale, "time-scale", 1, "with --real: run this many times faster than the seed's timeline")
	return fs
}

func runSimRetry(ctx context.Context, e *env, args []string) error {
	var o simRetryOptions
	fs := simRetryFlags(e, &o)
	if err := parse(fs, args); err != nil {
		return err
	}
	strategies, err := o.check()
	if err != nil {
		return err
	}
	if err := o.checkReal(fs); err != nil {
		return err
	}
	results, err := o.run(ctx, strategies)
	if err != nil {
		return err
	}
	table := e.stdout
	if o.out == "-" {
		table = e.stderr
	}
	if err := writeRetryLog(e.stdout, o.out, o.write, results); err != nil {
		return err
	}
	return retry.WriteTable(table, retry.Summaries(o.cfg, results))
}

// checkReal rejects the flags that mean nothing in the chosen mode.
func (o *simRetryOptions) checkReal(fs *pflag.FlagSet) error {
	switch {
	case !o.real && fs.Changed("time-scale"):
		return retryUsagef("--time-scale needs --real")
	case o.real && fs.Changed("rtt"):
		return retryUsagef("--rtt is the virtual network; --real uses the loopback")
	case o.real && !(o.scale > 0):
		return retryUsagef("--time-scale %g: want a positive number", o.scale)
	}
	return nil
}

func (o *simRetryOptions) run(ctx context.Context, strategies []retry.Strategy) ([]retry.Result, error) {
	if !o.real {
		return retry.Run(o.cfg, strategies), nil
	}
	results, err := retry.RunReal(ctx, o.cfg, strategies, o.scale)
	if err != nil {
		return nil, fmt.Errorf("sim retry --real: %w", err)
	}
	return results, nil
}

// write writes the log of the chosen mode.
func (o *simRetryOptions) write(w io.Writer, results []retry.Result) error {
	if o.real {
		return retry.WriteRealLog(w, o.cfg, o.scale, results)
	}
	return retry.WriteLog(w, o.cfg, results)
}

// check turns the flags that need more than pflag's parsing into the model.
func (o *simRetryOptions) check() ([]retry.Strategy, error) {
	span, err := hypothesis.ParseSpan(o.affected)
	if err != nil {
		return nil, retryUsagef("--affected: %v", err)
	}
	o.cfg.AffectedFrom = time.Duration(span.FromMs * float64(time.Millisecond))
	o.cfg.AffectedTo = time.Duration(span.ToMs * float64(time.Millisecond))
	if err := o.cfg.Validate(); err != nil {
		return nil, retryUsagef("%v", err)
	}
	var names []string
	for _, s := range o.strategies {
		names = append(names, strings.ToUpper(strings.TrimSpace(s)))
	}
	strategies, err := retry.Pick(names)
	if err != nil {
		return nil, retryUsagef("--strategies: %v", err)
	}
	return strategies, nil
}

func writeRetryLog(stdout io.Writer, path string, write func(io.Writer, []retry.Result) error, results []retry.Result) error {
	if path == "-" {
		return write(stdout, results)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create log: %w", err)
	}
	if err := write(f, results); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// parseSpan reads FROM..TO, each a Go duration (8.5s) or a number of ms.
// retryUsagef is a usage error that points at the flag reference.
func retryUsagef(format string, a ...any) error {
	return usageError{hinted{fmt.Errorf(format, a...), "rewind sim retry --help"}}
}
