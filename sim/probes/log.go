package probes

import (
	"io"
	"strconv"

	"github.com/rewind-dev/rewind/sim/simlog"
)

// Experiment is the experiment name every line of the log carries.
const Experiment = "probes"

// RoundMs is the length of one round in the log's clock: round r happens at
// t_ms = r × RoundMs. The model has no finer time, so all of a round's lines
// share one t_ms and keep their order by line.
const RoundMs = 1000

// logWriter turns the model's observations into canonical NDJSON lines. It
// keeps the first write error and drops later lines, so the model stays free
// of error plumbing.
type logWriter struct {
	w        *simlog.Writer
	run      string
	perRound int         // requests per round, to number requests within a run
	restarts map[int]int // restarts so far per replica, planned ones included
	err      error
}

func newLogWriter(w io.Writer) *logWriter { return &logWriter{w: simlog.NewWriter(w)} }

// header writes the experiment line and one run line per setting, so a
// reader knows every run, even one without events, before any data.
func (l *logWriter) header(sc Scenario, settings []Setting) {
	l.perRound = sc.RequestsPerRound
	l.keep(l.w.Experiment(simlog.Experiment{Experiment: Experiment, Params: map[string]any{
		"rounds":             sc.Rounds,
		"requests_per_round": sc.RequestsPerRound,
		"replicas":           sc.Replicas(),
		"round_ms":           RoundMs,
	}}))
	for _, st := range settings {
		l.keep(l.w.Run(simlog.Run{Experiment: Experiment, Run: st.Name, Params: settingParams(st)}))
	}
}

// settingParams flattens a setting into scalar params; an absent probe has
// no keys, so "no probes" has no params at all.
func settingParams(st Setting) map[string]any {
	p := map[string]any{}
	add := func(name string, pr *Probe) {
		if pr == nil {
			return
		}
		p[name+"_period"] = pr.Period
		p[name+"_threshold"] = pr.Threshold
		if pr.Scope != "" {
			p[name+"_scope"] = pr.Scope
		}
	}
	add("liveness", st.Liveness)
	add("readiness", st.Readiness)
	add("startup", st.Startup)
	return p
}

// startRun points the writer at the next setting's lines.
func (l *logWriter) startRun(name string) {
	l.run = name
	l.restarts = map[int]int{}
}

func (l *logWriter) keep(err error) {
	if l.err == nil {
		l.err = err
	}
}

func (l *logWriter) flush() error {
	l.keep(l.w.Flush())
	return l.err
}

func tMs(round int) *float64 { return simlog.Float(float64(round * RoundMs)) }

func (l *logWriter) event(typ string, round, replica int, state State, attrs map[string]any) {
	if l.err != nil {
		return
	}
	attrs["round"] = round
	attrs["replica"] = replica
	l.keep(l.w.Event(simlog.Event{Experiment: Experiment, Run: l.run, Type: typ, TMs: tMs(round),
		Subject: strconv.Itoa(replica), State: string(state), Attrs: attrs}))
}

func (l *logWriter) fault(round int, f Fault) {
	attrs := map[string]any{"fault": f.Type}
	state := Stuck
	if f.Type == FaultDependencyLost {
		state = NoDependency
		attrs["duration"] = f.Duration
	}
	l.event("fault", round, f.Replica, state, attrs)
}

func (l *logWriter) restart(round, replica int, state State, reason string, stuckSince int) {
	l.restarts[replica]++
	attrs := map[string]any{"reason": reason, "restart_no": l.restarts[replica]}
	if stuckSince >= 0 {
		attrs["stuck_since_round"] = stuckSince
	}
	l.event("restart", round, replica, state, attrs)
}

func (l *logWriter) replicaState(round, replica int, state State, inPool bool) {
	l.event("state", round, replica, state, map[string]any{"in_pool": inPool})
}

func (l *logWriter) request(round, n, replica int, state State, ok bool) {
	if l.err != nil {
		return
	}
	attrs := map[string]any{"round": round, "replica": nil, "replica_state": nil}
	if replica >= 0 {
		attrs["replica"] = replica
		attrs["replica_state"] = string(state)
	}
	outcome := "ok"
	if !ok {
		outcome = "error"
	}
	l.keep(l.w.Request(simlog.Request{Experiment: Experiment, Run: l.run, Req: int64(round*l.perRound + n),
		TMs: tMs(round), Outcome: outcome, Attrs: attrs}))
}

// nopObserver is used when no log is wanted.
type nopObserver struct{}

func (nopObserver) fault(int, Fault)                     {}
func (nopObserver) restart(int, int, State, string, int) {}
func (nopObserver) replicaState(int, int, State, bool)   {}
func (nopObserver) request(int, int, int, State, bool)   {}
