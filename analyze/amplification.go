package analyze

import (
	"fmt"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// AmplificationOptions steer Amplification. Zero values take each run's
// stored parameters (tick_ms, fault_from_ms, fault_to_ms, normal_rate), then
// the experiment's; a set value overrides them for every run.
type AmplificationOptions struct {
	Experiment string
	Runs       string          // GLOB over run names; empty for all runs
	TickMs     float64         // tick length in ms; 0: stored
	Fault      hypothesis.Span // fault window; zero: stored
	NormalRate float64         // normal arrivals in calls per tick; 0: stored
	By         []string        // fields whose values split each run into groups (docs/by.md)
}

// Amplification counts, per run, the calls that retries added: requests,
// calls, their ratio, the peak calls per tick, succeeded and dropped calls,
// and the call rate in the fault window against the normal rate. It reads
// only the log, so it works on any log in the canonical schema.
func Amplification(db store.Querier, o AmplificationOptions) (*Result, error) {
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, err
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	g, err := groupBy(db, e.Name, o.By)
	if err != nil {
		return nil, err
	}
	return amplificationQuery(db, e, g, o)
}

// amplificationQuery runs the library's amplification.
func amplificationQuery(db store.Querier, e store.Experiment, g grouping, o AmplificationOptions) (*Result, error) {
	res, err := Query(db, "amplification", store.Units("amplification"),
		`SELECT `+g.sel("*")+` FROM `+g.call("amplification")+`, runs_glob := ?, tick_ms := ?, fault_from_ms := ?, fault_to_ms := ?, normal_rate := ?)`,
		append([]any{e.Name}, o.args()...)...)
	if err != nil {
		return nil, err
	}
	if len(res.Rows) == 0 && o.Runs != "" {
		return nil, fmt.Errorf("experiment %q has no run matching %q", e.Name, o.Runs)
	}
	return res, nil
}

// args are the macro's runs_glob, tick_ms, fault_from_ms, fault_to_ms and
// normal_rate: NULL where not given, and the macro falls back to stored
// params.
func (o AmplificationOptions) args() []any {
	var runs, from, to any
	if o.Runs != "" {
		runs = o.Runs
	}
	if !o.Fault.IsZero() {
		from, to = o.Fault.FromMs, o.Fault.ToMs
	}
	return []any{runs, positive(o.TickMs), from, to, positive(o.NormalRate)}
}

func (o AmplificationOptions) check() error {
	if o.TickMs < 0 {
		return fmt.Errorf("tick %vms: want a positive duration", o.TickMs)
	}
	if o.NormalRate < 0 {
		return fmt.Errorf("normal rate %v: want a positive number of calls per tick", o.NormalRate)
	}
	return nil
}

// positive maps the zero value ("not given") to NULL.
func positive(f float64) any {
	if f == 0 {
		return nil
	}
	return f
}
