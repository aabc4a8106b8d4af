package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rewind-dev/rewind/sim/probes"
)

func init() {
	registerSim(simCommand{name: "probes", summary: "liveness, readiness and startup probes over replicas (seed 001)", run: runSimProbes})
}

const simProbesUsage = `Usage: rewind sim probes [--scenario FILE.json] [--sweep] [--out FILE.ndjson]

Simulates health probes round by round (seed 001): replicas that start slowly,
lose a dependency for a while or get stuck for good, and the restarts and pool
changes that liveness, readiness and startup probes make of it. Every setting
runs against the same events. Prints one row per setting: restarts, how many
were unnecessary or killed a starting replica, replicas in a restart loop,
errors, mean healthy replicas per round and how long stuck replicas went
unnoticed.

Without --scenario it runs the seed's scenario and its four settings
(fixtures/probes/scenario.json holds the same scenario as a file to edit).
--sweep adds the seed's sweep of the liveness period and threshold, without
and with a startup probe, over the scenario's events.

--out writes one canonical NDJSON log of every run for rewind ingest: a request
line per request, a state event per replica and round, restart and fault
events (see the README's probes section for the layout).

Examples:
  rewind sim probes
  rewind sim probes --sweep --out probes.ndjson
  rewind sim probes --scenario fixtures/probes/scenario.json`

type simProbesOptions struct {
	scenario string
	sweep    bool
	out      string
}

func runSimProbes(ctx context.Context, e *env, args []string) error {
	var o simProbesOptions
	flags := newFlags(e, "sim probes", simProbesUsage)
	flags.StringVar(&o.scenario, "scenario", "", "read the scenario and its settings from `FILE.json` (default: the seed's)")
	flags.BoolVar(&o.sweep, "sweep", false, "add the liveness period × threshold sweep, without and with a startup probe")
	flags.StringVar(&o.out, "out", "", "write the NDJSON log of all runs to `FILE.ndjson` (- for stdout, the tables then go to stderr)")
	if err := parse(flags, args); err != nil {
		return err
	}
	cfg := probes.Config{Scenario: probes.Default(), Sweep: o.sweep}
	if o.scenario != "" {
		sc, err := probes.LoadScenario(o.scenario)
		if err != nil {
			return err
		}
		cfg.Scenario = sc
	}
	if o.out == "-" {
		rep, err := probes.Simulate(cfg, e.stdout)
		if err != nil {
			return err
		}
		fmt.Fprint(e.stderr, rep.Text())
		return nil
	}
	rep, err := simulateProbes(cfg, o.out)
	if err != nil {
		return err
	}
	fmt.Fprint(e.stdout, rep.Text())
	if o.out != "" {
		fmt.Fprintf(e.stderr, "wrote %s (%d runs)\n", o.out, len(rep.Settings)+len(rep.Sweep))
	}
	return nil
}

// simulateProbes runs cfg and, when out is set, writes the log there. It
// writes a temporary file next to out and renames it, so a failed run
// neither leaves half a log nor destroys an existing one.
func simulateProbes(cfg probes.Config, out string) (probes.Report, error) {
	if out == "" {
		return probes.Simulate(cfg, nil)
	}
	f, err := os.CreateTemp(filepath.Dir(out), ".rewind-probes-*.ndjson")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary name would only confuse
		}
		return probes.Report{}, fmt.Errorf("create %s: %w", out, err)
	}
	rep, err := probes.Simulate(cfg, f)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes it private; a log is not
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write log: %w", cerr)
	}
	if err == nil {
		err = os.Rename(f.Name(), out)
	}
	if err != nil {
		os.Remove(f.Name()) // best effort: the error that matters is err
		return probes.Report{}, err
	}
	return rep, nil
}
