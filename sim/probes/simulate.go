package probes

import (
	"fmt"
	"io"
)

// Config says what to simulate.
type Config struct {
	Scenario Scenario
	// Sweep adds the liveness period × threshold sweep, run over the same
	// scenario events.
	Sweep bool
}

// Report holds the results, in the order of the scenario's settings and
// then of the sweep.
type Report struct {
	Scenario Scenario
	Settings []Result
	Sweep    []SweepResult
}

// SweepResult is one sweep row.
type SweepResult struct {
	SweepPoint
	Result Result
}

// Run simulates one setting over the scenario's events; the scenario's own
// settings are ignored.
func Run(sc Scenario, set Setting) (Result, error) {
	sc.Settings = []Setting{set}
	if err := sc.Validate(); err != nil {
		return Result{}, err
	}
	return simulate(sc, set, nopObserver{}), nil
}

// Simulate runs every setting of cfg. When log is not nil it also writes the
// canonical NDJSON log of all runs to it (see the package doc for its lines).
func Simulate(cfg Config, log io.Writer) (Report, error) {
	sc := cfg.Scenario
	if err := sc.Validate(); err != nil {
		return Report{}, err
	}
	var sweep []SweepPoint
	if cfg.Sweep {
		sweep = Sweep()
	}
	if err := checkSweepNames(sc.Settings, sweep); err != nil {
		return Report{}, err
	}
	settings := allSettings(sc.Settings, sweep)
	results, err := runAll(sc, settings, log)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Scenario: sc, Settings: results[:len(sc.Settings)]}
	for i, pt := range sweep {
		rep.Sweep = append(rep.Sweep, SweepResult{SweepPoint: pt, Result: results[len(sc.Settings)+i]})
	}
	return rep, nil
}

// checkSweepNames keeps run names unique in the log.
func checkSweepNames(own []Setting, sweep []SweepPoint) error {
	for i, st := range own {
		for _, pt := range sweep {
			if st.Name == pt.Setting.Name {
				return fieldErr(index("settings", i)+".name", "%q is also a sweep setting's name (rename it or drop the sweep)", st.Name)
			}
		}
	}
	return nil
}

func allSettings(own []Setting, sweep []SweepPoint) []Setting {
	all := append([]Setting(nil), own...)
	for _, pt := range sweep {
		all = append(all, pt.Setting)
	}
	return all
}

func runAll(sc Scenario, settings []Setting, log io.Writer) ([]Result, error) {
	results := make([]Result, 0, len(settings))
	if log == nil {
		for _, st := range settings {
			results = append(results, simulate(sc, st, nopObserver{}))
		}
		return results, nil
	}
	lw := newLogWriter(log)
	lw.header(sc, settings)
	for _, st := range settings {
		lw.startRun(st.Name)
		results = append(results, simulate(sc, st, lw))
	}
	if err := lw.flush(); err != nil {
		return nil, fmt.Errorf("write log: %w", err)
	}
	return results, nil
}
