package probes

// Result is what one setting did over the scenario, counted the seed's way.
type Result struct {
	Setting string
	// Restarts counts restarts triggered by liveness or startup probes;
	// planned restarts are not counted.
	Restarts int
	// UnnecessaryRestarts are probe restarts of a replica that was not stuck.
	UnnecessaryRestarts int
	// KilledDuringStartup are probe restarts of a replica that was starting.
	KilledDuringStartup int
	// InRestartLoop counts replicas with 3 or more probe restarts.
	InRestartLoop int
	// EarlyErrors are requests routed to a replica that was starting.
	EarlyErrors int
	// Errors are all failed requests, including those with an empty pool.
	Errors int
	// HealthyReplicaRounds sums, over rounds, the replicas truly healthy.
	HealthyReplicaRounds int
	Rounds               int
	// DetectionRounds holds, for each stuck replica a liveness probe
	// restarted, the rounds it had been stuck, in order of detection.
	DetectionRounds []int
}

// InService is the mean number of truly healthy replicas per round.
func (r Result) InService() float64 { return float64(r.HealthyReplicaRounds) / float64(r.Rounds) }

// probe runs replica i's probes for round t against its true state d taken
// once, before any of them acts; readiness therefore still judges the state
// a liveness restart in the same round ended.
func (m *model) probe(i, t int) {
	d := m.state(i, t)
	if !m.reps[i].startupDone {
		m.startupProbe(i, t, d)
		return // the other probes wait for the startup probe
	}
	m.livenessProbe(i, t, d)
	m.readinessProbe(i, t, d)
}

// startupProbe: passing it only hands over to the other probes, which then
// first run in a later round.
func (m *model) startupProbe(i, t int, d State) {
	p, r := m.set.Startup, &m.reps[i]
	if t%p.Period != 0 {
		return
	}
	if d != Starting {
		r.startupDone = true
		return
	}
	if r.startFails++; r.startFails < p.Threshold {
		return
	}
	// A startup probe only ever kills a starting replica, which is never
	// necessary.
	m.res.Restarts++
	m.res.KilledDuringStartup++
	m.res.UnnecessaryRestarts++
	r.restarts++
	m.restart(i, t, d, ReasonStartup)
}

func (m *model) livenessProbe(i, t int, d State) {
	p, r := m.set.Liveness, &m.reps[i]
	if p == nil || t%p.Period != 0 {
		return
	}
	if !livenessFails(p.Scope, d) {
		r.liveFails = 0
		return
	}
	if r.liveFails++; r.liveFails < p.Threshold {
		return
	}
	m.res.Restarts++
	r.restarts++
	if d == Stuck {
		m.res.DetectionRounds = append(m.res.DetectionRounds, t-r.stuckSince)
	} else {
		m.res.UnnecessaryRestarts++
	}
	if d == Starting {
		m.res.KilledDuringStartup++
	}
	m.restart(i, t, d, ReasonLiveness)
}

// livenessFails is where scope matters: a dependency-scoped probe asks the
// readiness question and so also fails on a lost dependency.
func livenessFails(scope string, d State) bool {
	if scope == ScopeDependency {
		return d != Healthy
	}
	return d == Starting || d == Stuck
}

func (m *model) readinessProbe(i, t int, d State) {
	p, r := m.set.Readiness, &m.reps[i]
	if p == nil || t%p.Period != 0 {
		return
	}
	if d == Healthy {
		r.readyFails = 0
		r.inPool = true
		return
	}
	if r.readyFails++; r.readyFails >= p.Threshold {
		r.inPool = false
	}
}

// serve routes the round's requests round-robin over the pool the probes
// believe in, and counts the replicas that are truly healthy.
func (m *model) serve(t int) {
	var pool []int
	for i := range m.reps {
		if m.reps[i].inPool {
			pool = append(pool, i)
		}
	}
	for i := range m.reps {
		d := m.state(i, t)
		if d == Healthy {
			m.res.HealthyReplicaRounds++
		}
		m.obs.replicaState(t, i, d, m.reps[i].inPool)
	}
	for n := 0; n < m.sc.RequestsPerRound; n++ {
		m.request(t, n, pool)
	}
}

func (m *model) request(t, n int, pool []int) {
	if len(pool) == 0 {
		m.res.Errors++
		m.obs.request(t, n, -1, "", false)
		return
	}
	i := pool[n%len(pool)]
	d := m.state(i, t)
	if d != Healthy {
		m.res.Errors++
	}
	if d == Starting {
		m.res.EarlyErrors++
	}
	m.obs.request(t, n, i, d, d == Healthy)
}
