package storm

import (
	"context"
	"fmt"
	"io"

	"github.com/rewind-dev/rewind/sim/simlog"
)

// RunResult is one policy run through one scenario.
type RunResult struct {
	Scenario Scenario
	Policy   Policy
	Result   Result
}

// RunName returns the run's name in the log: "<config>|<scenario>".
func RunName(pol Policy, sc Scenario) string { return pol.Name + "|" + sc.Name }

// Outcome is everything an experiment measured.
type Outcome struct {
	Config Config
	Runs   []RunResult // scenario-major, in the order of the config
	// Sensitivity is the outage run of the three-layer chain with the
	// tighter budget; nil when the config lacks either.
	Sensitivity *Result
}

// Run runs every policy through every scenario, writes the per-call log to
// logw when it is not nil, and prints the tables and summary to out.
func Run(ctx context.Context, cfg Config, out, logw io.Writer) error {
	o, err := Measure(ctx, cfg, logw)
	if err != nil {
		return err
	}
	return o.Write(out)
}

// Measure runs the experiment and writes the per-call log to logw when it is
// not nil.
func Measure(ctx context.Context, cfg Config, logw io.Writer) (Outcome, error) {
	if err := cfg.Validate(); err != nil {
		return Outcome{}, err
	}
	lw := newLogWriter(logw, cfg.Params)
	if err := lw.experiment(); err != nil {
		return Outcome{}, fmt.Errorf("write log: %w", err)
	}
	o := Outcome{Config: cfg}
	for _, sc := range cfg.Scenarios {
		for _, pol := range cfg.Policies {
			if err := ctx.Err(); err != nil {
				return o, err
			}
			res, err := lw.run(pol, sc)
			if err != nil {
				return o, fmt.Errorf("run %q: %w", RunName(pol, sc), err)
			}
			o.Runs = append(o.Runs, RunResult{Scenario: sc, Policy: pol, Result: res})
		}
	}
	o.Sensitivity = cfg.sensitivity()
	return o, lw.flush()
}

// sensitivity reruns the outage with the three-layer chain under the tighter
// budget. It is not logged: it is a what-if behind one summary line, not a
// row of the tables.
func (c Config) sensitivity() *Result {
	sc, okS := findScenario(c.Scenarios, ScenarioOutage)
	pol, okP := findPolicy(c.Policies, PolicyThree)
	if !okS || !okP {
		return nil
	}
	pol.Budget = budget(c.SensitivityBudget)
	res, _ := Simulate(c.Params, sc, pol, nil) // no emit, so no error
	return &res
}

func findScenario(scs []Scenario, name string) (Scenario, bool) {
	for _, sc := range scs {
		if sc.Name == name {
			return sc, true
		}
	}
	return Scenario{}, false
}

func findPolicy(pols []Policy, name string) (Policy, bool) {
	for _, p := range pols {
		if p.Name == name {
			return p, true
		}
	}
	return Policy{}, false
}

// Experiment is the experiment name in the log.
const Experiment = "storm"

// logWriter runs simulations and, when it has a writer, logs them.
type logWriter struct {
	w *simlog.Writer // nil: no log
	p Params
}

func newLogWriter(w io.Writer, p Params) *logWriter {
	lw := &logWriter{p: p}
	if w != nil {
		lw.w = simlog.NewWriter(w)
	}
	return lw
}

// experiment writes the experiment line: the parameters shared by all runs.
func (lw *logWriter) experiment() error {
	if lw.w == nil {
		return nil
	}
	p := lw.p
	return lw.w.Experiment(simlog.Experiment{Experiment: Experiment, Params: map[string]any{
		"seed":               p.Seed,
		"ticks":              p.Ticks,
		"tick_ms":            p.TickMs,
		"rate_per_s":         p.RatePerSecond,
		"normal_rate":        p.NormalRate(),
		"capacity":           p.Capacity,
		"sparse_failure":     p.SparseFailure,
		"backoff_base_ticks": p.Backoff.Base,
		"backoff_cap_ticks":  p.Backoff.Cap,
	}})
}

// run simulates one run, logging its run line and every call.
func (lw *logWriter) run(pol Policy, sc Scenario) (Result, error) {
	if lw.w == nil {
		return Simulate(lw.p, sc, pol, nil)
	}
	name := RunName(pol, sc)
	if err := lw.w.Run(simlog.Run{Experiment: Experiment, Run: name, Params: runParams(lw.p, pol, sc)}); err != nil {
		return Result{}, err
	}
	return Simulate(lw.p, sc, pol, func(c Call) error { return lw.w.Request(request(name, lw.p.TickMs, c)) })
}

// runParams are the defaults an analysis of the run starts from. Keys that do
// not apply (no budget, no fault window) are left out rather than set to null.
func runParams(p Params, pol Policy, sc Scenario) map[string]any {
	m := map[string]any{
		"allowed":     pol.Allowed(),
		"layers":      pol.Layers,
		"tick_ms":     p.TickMs,
		"normal_rate": p.NormalRate(),
		"capacity":    p.Capacity,
	}
	if pol.Budget != nil {
		m["budget"] = *pol.Budget
	}
	if !sc.faultFree() {
		m["fault_from_ms"] = p.FaultStart * p.TickMs
		m["fault_to_ms"] = (p.FaultStart + sc.Window) * p.TickMs
		m["fault_capacity"] = sc.Capacity
	}
	return m
}

func request(run string, tickMs int, c Call) simlog.Request {
	outcome := "error"
	if c.OK {
		outcome = "ok"
	}
	return simlog.Request{
		Experiment: Experiment,
		Run:        run,
		Req:        c.Req,
		Attempt:    simlog.Int(c.Attempt),
		TMs:        simlog.Float(float64(c.Tick * tickMs)),
		Outcome:    outcome,
		Retried:    simlog.Bool(c.Retried),
	}
}

func (lw *logWriter) flush() error {
	if lw.w == nil {
		return nil
	}
	return lw.w.Flush()
}
