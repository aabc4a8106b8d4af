package probes

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Small hand-checked scenarios pin down the order of evaluation where the
// seed's tables cannot tell orders apart.
func TestModelEdgeCases(t *testing.T) {
	for _, tc := range []struct {
		name string
		sc   Scenario
		set  Setting
		want Result
	}{{
		// The readiness probe takes the only replica out: every request
		// fails, none of them early.
		name: "empty pool",
		sc: Scenario{Rounds: 4, RequestsPerRound: 10, StartupRounds: []int{2},
			Faults: []Fault{{Replica: 0, Round: 0, Type: FaultDependencyLost, Duration: 2}}},
		set:  Setting{Name: "s", Readiness: &Probe{Period: 1, Threshold: 1}},
		want: Result{Setting: "s", Errors: 20, HealthyReplicaRounds: 2, Rounds: 4},
	}, {
		// Starting wins over stuck, so a hang during startup is killed as
		// a starting replica, not detected; the restart clears the hang.
		name: "stuck while starting",
		sc: Scenario{Rounds: 6, RequestsPerRound: 1, StartupRounds: []int{3},
			PlannedRestarts: []Planned{{Replica: 0, Round: 0}},
			Faults:          []Fault{{Replica: 0, Round: 1, Type: FaultStuck}}},
		set: Setting{Name: "s", Liveness: &Probe{Period: 1, Threshold: 3, Scope: ScopeProcess}},
		want: Result{Setting: "s", Restarts: 1, UnnecessaryRestarts: 1, KilledDuringStartup: 1,
			EarlyErrors: 5, Errors: 5, HealthyReplicaRounds: 1, Rounds: 6},
	}, {
		// The round the startup probe passes, liveness stays silent: the
		// hang of round 2 is found in round 3, not 2.
		name: "startup pass silences liveness for the round",
		sc: Scenario{Rounds: 5, RequestsPerRound: 1, StartupRounds: []int{2},
			PlannedRestarts: []Planned{{Replica: 0, Round: 0}},
			Faults:          []Fault{{Replica: 0, Round: 2, Type: FaultStuck}}},
		set: Setting{Name: "s", Liveness: &Probe{Period: 1, Threshold: 1, Scope: ScopeProcess},
			Startup: &Probe{Period: 2, Threshold: 5}},
		want: Result{Setting: "s", Restarts: 1, EarlyErrors: 4, Errors: 5, Rounds: 5, DetectionRounds: []int{1}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Run(tc.sc, tc.set)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunRejectsInvalidSetting(t *testing.T) {
	_, err := Run(Default(), Setting{Name: "s", Readiness: &Probe{Period: 0, Threshold: 1}})
	if want := "settings[0].readiness.period: must be at least 1, got 0"; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
