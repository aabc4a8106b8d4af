package main

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/rewind-dev/rewind/internal/progress"
	"github.com/rewind-dev/rewind/sim/chaos"
	"github.com/spf13/pflag"
)

func init() {
	registerSim(simCommand{name: "chaos", summary: "chaos experiment against a real loopback HTTP service (seed 003)", run: runSimChaos})
}

const simChaosUsage = `Usage: rewind sim chaos [flags]

Runs the chaos experiment of seed 003 for real: a net/http catalog service on
127.0.0.1 delays batches that carry the experiment tag, and a batching client
with a hard timeout records each request as "tam" (answered in time) or
"bozulmus" (error or timeout). It does a control run (experiment off), then the
experiment run, each against a fresh service, writes both to a gunluk.json in
the seed's format and prints the blast-radius summary.

With the defaults the per-request outcomes equal the seed's: delays and pauses
are longer than the timeout, so only wall time varies between runs.

Examples:
  rewind sim chaos
  rewind sim chaos --out /tmp/gunluk.json --timeout 400ms
  rewind sim chaos --batch 1 --tag-share 0.10 && rewind ingest gunluk.json`

type simChaosOptions struct {
	out string
	cfg chaos.Config
}

func simChaosFlags(e *env) (*simChaosOptions, *pflag.FlagSet) {
	o := &simChaosOptions{cfg: chaos.DefaultConfig()}
	fs := newFlags(e, "sim chaos", simChaosUsage)
	c := &o.cfg
	fs.StringVar(&o.out, "out", "gunluk.json", "write the log to `FILE` (- for stdout; the tables then go to stderr)")
	fs.IntVar(&c.Requests, "requests", c.Requests, "requests per run (N)")
	fs.IntVar(&c.Window, "window", c.Window, "window size in requests, stored in the log (PENCERE)")
	fs.IntVar(&c.Start, "start", c.Start, "first request the experiment may tag (DENEY_BASI)")
	fs.IntVar(&c.BatchSize, "batch", c.BatchSize, "requests per batch")
	fs.DurationVar(&c.Delay, "delay", c.Delay, "delay injected into tagged batches")
	fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "client timeout per batch")
	fs.Float64Var(&c.NoiseShare, "noise-share", c.NoiseShare, "share of untagged batches the service pauses")
	fs.DurationVar(&c.NoisePause, "noise-pause", c.NoisePause, "length of a noise pause")
	fs.Uint32Var(&c.NoiseSeed, "noise-seed", c.NoiseSeed, "hash seed that picks the paused batches")
	fs.Float64Var(&c.TagShare, "tag-share", c.TagShare, "planned share of tagged users")
	fs.Uint32Var(&c.TagSeed, "tag-seed", c.TagSeed, "hash seed that picks the tagged users")
	fs.IntVar(&c.Concurrency, "concurrency", c.Concurrency, "client workers sending batches in parallel")
	return o, fs
}

func runSimChaos(ctx context.Context, e *env, args []string) error {
	o, fs := simChaosFlags(e)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := o.cfg.Validate(); err != nil {
		return usageError{hinted{err, "rewind sim chaos --help"}}
	}
	var finish func()
	o.cfg.Progress, finish = batchBar(e, "sim chaos")
	res, err := chaos.Run(ctx, o.cfg)
	finish()
	if err != nil {
		return fmt.Errorf("sim chaos: %w", err)
	}
	data, err := res.Log.Encode()
	if err != nil {
		return err
	}
	if o.out == "-" {
		if _, err := e.stdout.Write(data); err != nil {
			return fmt.Errorf("write log: %w", err)
		}
		printChaosResult(tablesToStderr(e), o, res)
		return nil
	}
	if err := os.WriteFile(o.out, data, 0o644); err != nil {
		return fmt.Errorf("write log: %w", err)
	}
	printChaosResult(e, o, res)
	return nil
}

// batchBar returns a progress callback for the simulator's workers (nil when
// stderr is not a terminal, so nothing is even counted) and the func that
// ends the bar. Workers report concurrently and out of order: the bar only
// moves forward.
func batchBar(e *env, desc string) (func(done, total int), func()) {
	if !e.stderrTTY {
		return nil, func() {}
	}
	var mu sync.Mutex
	var bar *progress.Bar
	last := 0
	onBatch := func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if bar == nil {
			bar = progress.New(e.stderr, true, int64(total), desc, "batches")
		}
		if done > last {
			last = done
			bar.Set(int64(done))
		}
	}
	return onBatch, func() { mu.Lock(); bar.Finish(); mu.Unlock() }
}

func printChaosResult(e *env, o *simChaosOptions, res chaos.Result) {
	fmt.Fprint(e.stdout, chaos.Summarize(o.cfg, res.Log))
	for _, r := range []struct {
		name string
		st   chaos.RunStats
	}{{"control", res.Control}, {"experiment", res.Experiment}} {
		fmt.Fprintf(e.stdout, "%-10s run: service saw %d batches (%d tagged, %d paused); "+
			"slowest in-time answer %.1f ms of %v; %.2fs\n",
			r.name, r.st.Batches, r.st.Tagged, r.st.Paused,
			float64(r.st.SlowestInTime.Microseconds())/1000, o.cfg.Timeout, r.st.Wall.Seconds())
		if len(r.st.Flips) > 0 {
			fmt.Fprintf(e.stderr, "Warning: %s run: batches %v broke or survived against their delay vs the %v timeout; "+
				"this log is not deterministic (machine too slow, or delays too close to the timeout)\n",
				r.name, r.st.Flips, o.cfg.Timeout)
		}
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", o.out)
}
