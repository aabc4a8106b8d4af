package probes

// State is a replica's true condition in a round. Probes never see it
// directly; each only gets a yes or no to its own question.
type State string

// The four states, in the order the model checks them: a replica that is
// still starting is starting even if a fault has already hit it.
const (
	Starting     State = "starting"
	Stuck        State = "stuck"
	NoDependency State = "no-dependency"
	Healthy      State = "healthy"
)

// Restart reasons as they appear in the log.
const (
	ReasonLiveness = "liveness"
	ReasonStartup  = "startup"
	ReasonPlanned  = "planned"
)

// loopRestarts is how many probe restarts put a replica in a restart loop.
const loopRestarts = 3

// replica is the controller's and the replica's bookkeeping for one slot.
type replica struct {
	readyAt     int // first round the process can serve
	stuck       bool
	stuckSince  int
	liveFails   int // consecutive failed probes of each kind
	readyFails  int
	startFails  int
	startupDone bool // liveness and readiness stay silent until the startup probe passes
	inPool      bool // what the readiness probe believes
	restarts    int  // probe restarts; planned ones do not count
}

// observer sees everything the model does, in order; the log writer is one.
type observer interface {
	fault(round int, f Fault)
	restart(round, replica int, state State, reason string, stuckSince int)
	replicaState(round, replica int, state State, inPool bool)
	request(round, n, replica int, state State, ok bool)
}

type model struct {
	sc   Scenario
	set  Setting
	reps []replica
	res  Result
	obs  observer
}

// simulate runs one setting over a validated scenario.
func simulate(sc Scenario, set Setting, obs observer) Result {
	m := &model{sc: sc, set: set, obs: obs, reps: make([]replica, sc.Replicas())}
	// Warm start: every replica is up, past its startup probe and in the pool.
	for i := range m.reps {
		m.reps[i] = replica{startupDone: true, inPool: true}
	}
	m.res = Result{Setting: set.Name, Rounds: sc.Rounds}
	for t := 0; t < sc.Rounds; t++ {
		m.round(t)
	}
	for _, r := range m.reps {
		if r.restarts >= loopRestarts {
			m.res.InRestartLoop++
		}
	}
	return m.res
}

// round keeps the seed's order: planned restarts, new faults, then each
// replica's probes in index order, then the round's requests.
func (m *model) round(t int) {
	for _, p := range m.sc.PlannedRestarts {
		if p.Round == t {
			m.restart(p.Replica, t, m.state(p.Replica, t), ReasonPlanned)
		}
	}
	for _, f := range m.sc.Faults {
		if f.Round != t {
			continue
		}
		m.obs.fault(t, f)
		if f.Type == FaultStuck {
			m.reps[f.Replica].stuck = true
			m.reps[f.Replica].stuckSince = t
		}
	}
	for i := range m.reps {
		m.probe(i, t)
	}
	m.serve(t)
}

func (m *model) state(i, t int) State {
	switch {
	case t < m.reps[i].readyAt:
		return Starting
	case m.reps[i].stuck:
		return Stuck
	case m.dependencyLost(i, t):
		return NoDependency
	}
	return Healthy
}

// dependencyLost depends on time alone: a restart does not bring a lost
// dependency back.
func (m *model) dependencyLost(i, t int) bool {
	for _, f := range m.sc.Faults {
		if f.Replica == i && f.Type == FaultDependencyLost && t >= f.Round && t < f.Round+f.Duration {
			return true
		}
	}
	return false
}

// restart puts replica i back to starting. The state passed in is the true
// state just before the restart.
func (m *model) restart(i, t int, d State, reason string) {
	r := &m.reps[i]
	since := -1
	if d == Stuck {
		since = r.stuckSince
	}
	m.obs.restart(t, i, d, reason, since)
	*r = replica{
		readyAt:     t + m.sc.StartupRounds[i],
		stuckSince:  r.stuckSince,
		restarts:    r.restarts,
		startupDone: m.set.Startup == nil,
		inPool:      m.set.Readiness == nil,
	}
}
