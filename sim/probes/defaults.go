package probes

import "fmt"

// Default returns the seed's scenario: eight warm replicas, two of which warm
// a cache and need 25 rounds to start, a rollout of those two at round 20, two
// transient dependency losses and two permanent hangs; and the seed's four
// settings, named in English.
func Default() Scenario {
	return Scenario{
		Rounds:           180,
		RequestsPerRound: 50,
		StartupRounds:    []int{6, 6, 6, 6, 6, 6, 25, 25},
		PlannedRestarts:  []Planned{{Replica: 6, Round: 20}, {Replica: 7, Round: 20}},
		Faults: []Fault{
			{Replica: 3, Round: 50, Type: FaultDependencyLost, Duration: 18},
			{Replica: 1, Round: 80, Type: FaultStuck},
			{Replica: 4, Round: 120, Type: FaultDependencyLost, Duration: 10},
			{Replica: 5, Round: 140, Type: FaultStuck},
		},
		Settings: DefaultSettings(),
	}
}

// DefaultSettings are the seed's four settings in its order: no probes; one
// endpoint answering both liveness and readiness; liveness limited to the
// process with a separate, faster readiness probe; and the same plus a
// startup probe that allows 30 rounds to start.
func DefaultSettings() []Setting {
	combined := Probe{Period: 5, Threshold: 3}
	process := Probe{Period: 5, Threshold: 3, Scope: ScopeProcess}
	dependency := Probe{Period: 5, Threshold: 3, Scope: ScopeDependency}
	return []Setting{
		{Name: "no probes"},
		{Name: "single combined probe", Liveness: ptr(dependency), Readiness: ptr(combined)},
		{Name: "liveness + readiness", Liveness: ptr(process), Readiness: ptr(sweepReadiness)},
		{Name: "plus startup", Liveness: ptr(process), Readiness: ptr(sweepReadiness), Startup: ptr(sweepStartup)},
	}
}

// The sweep varies only the liveness probe; readiness and (in the second
// half) startup stay as in the seed's last two settings.
var (
	sweepReadiness = Probe{Period: 2, Threshold: 1}
	sweepStartup   = Probe{Period: 5, Threshold: 6}
	sweepPeriods   = []int{2, 5, 10}
	sweepThreshold = []int{2, 3, 6}
)

// SweepPoint is one row of the liveness sweep.
type SweepPoint struct {
	Period, Threshold int
	WithStartup       bool
	Setting           Setting
}

// Sweep returns the seed's period × threshold sweep of a process-scoped
// liveness probe, first without and then with the startup probe (9 + 9).
func Sweep() []SweepPoint {
	var pts []SweepPoint
	for _, withStartup := range []bool{false, true} {
		for _, p := range sweepPeriods {
			for _, th := range sweepThreshold {
				pts = append(pts, sweepPoint(p, th, withStartup))
			}
		}
	}
	return pts
}

func sweepPoint(period, threshold int, withStartup bool) SweepPoint {
	st := Setting{
		Name:      fmt.Sprintf("sweep liveness period %d threshold %d", period, threshold),
		Liveness:  &Probe{Period: period, Threshold: threshold, Scope: ScopeProcess},
		Readiness: ptr(sweepReadiness),
	}
	if withStartup {
		st.Name += " + startup"
		st.Startup = ptr(sweepStartup)
	}
	return SweepPoint{Period: period, Threshold: threshold, WithStartup: withStartup, Setting: st}
}

// ptr copies p so settings never share a probe value.
func ptr(p Probe) *Probe { return &p }
