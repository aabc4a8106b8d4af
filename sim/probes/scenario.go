package probes

import (
	"fmt"
	"strconv"
)

// Fault types a scenario may name.
const (
	FaultDependencyLost = "dependency_lost" // transient: heals by itself after Duration rounds
	FaultStuck          = "stuck"           // permanent: only a restart clears it
)

// Liveness scopes: what a failing liveness probe can see.
const (
	ScopeProcess    = "process"    // fails only while the replica is starting or stuck
	ScopeDependency = "dependency" // fails whenever the replica is not healthy
)

// Scenario is one hand-written sequence of events and the probe settings to
// run against it. Every setting sees the same events.
type Scenario struct {
	Rounds           int       `json:"rounds"`
	RequestsPerRound int       `json:"requests_per_round"`
	StartupRounds    []int     `json:"startup_rounds"` // one entry per replica
	PlannedRestarts  []Planned `json:"planned_restarts,omitempty"`
	Faults           []Fault   `json:"faults,omitempty"`
	Settings         []Setting `json:"settings"`
}

// Planned is a restart an operator asked for (a rollout). It does not count
// as a probe restart.
type Planned struct {
	Replica int `json:"replica"`
	Round   int `json:"round"`
}

// Fault hits one replica at the start of Round.
type Fault struct {
	Replica  int    `json:"replica"`
	Round    int    `json:"round"`
	Type     string `json:"type"`
	Duration int    `json:"duration,omitempty"` // dependency_lost only
}

// Setting is one probe configuration; a nil probe is not configured.
type Setting struct {
	Name      string `json:"name"`
	Liveness  *Probe `json:"liveness,omitempty"`
	Readiness *Probe `json:"readiness,omitempty"`
	Startup   *Probe `json:"startup,omitempty"`
}

// Probe runs every Period rounds (on rounds divisible by Period) and acts
// after Threshold consecutive failures. Scope applies to liveness only.
type Probe struct {
	Period    int    `json:"period"`
	Threshold int    `json:"threshold"`
	Scope     string `json:"scope,omitempty"`
}

// Replicas is the number of replicas in the scenario.
func (s Scenario) Replicas() int { return len(s.StartupRounds) }

// FieldError names the scenario field that is wrong, as a JSON path such as
// faults[2].type, so a user can find it in the file.
type FieldError struct {
	Path string
	Msg  string
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Msg }

func fieldErr(path, format string, a ...any) error {
	return &FieldError{Path: path, Msg: fmt.Sprintf(format, a...)}
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// Validate reports the first invalid value. Scenarios built in Go go through
// it as well as decoded ones, so the simulator never sees a period of zero.
func (s Scenario) Validate() error {
	if err := s.validateShape(); err != nil {
		return err
	}
	for i, p := range s.PlannedRestarts {
		if err := s.validateWhen(index("planned_restarts", i), p.Replica, p.Round); err != nil {
			return err
		}
	}
	for i, f := range s.Faults {
		if err := s.validateFault(index("faults", i), f); err != nil {
			return err
		}
	}
	return validateSettings(s.Settings)
}

func (s Scenario) validateShape() error {
	if s.Rounds < 1 {
		return fieldErr("rounds", "must be at least 1, got %d", s.Rounds)
	}
	if s.RequestsPerRound < 1 {
		return fieldErr("requests_per_round", "must be at least 1, got %d", s.RequestsPerRound)
	}
	if len(s.StartupRounds) == 0 {
		return fieldErr("startup_rounds", "must list at least one replica")
	}
	for i, n := range s.StartupRounds {
		if n < 0 {
			return fieldErr(index("startup_rounds", i), "must not be negative, got %d", n)
		}
	}
	return nil
}

func (s Scenario) validateWhen(path string, replica, round int) error {
	if replica < 0 || replica >= s.Replicas() {
		return fieldErr(path+".replica", "replica %d out of range (want 0..%d, one per startup_rounds entry)",
			replica, s.Replicas()-1)
	}
	if round < 0 || round >= s.Rounds {
		return fieldErr(path+".round", "round %d out of range (want 0..%d)", round, s.Rounds-1)
	}
	return nil
}

func (s Scenario) validateFault(path string, f Fault) error {
	if err := s.validateWhen(path, f.Replica, f.Round); err != nil {
		return err
	}
	switch f.Type {
	case FaultDependencyLost:
		if f.Duration < 1 {
			return fieldErr(path+".duration", "must be at least 1 for a dependency_lost fault, got %d", f.Duration)
		}
	case FaultStuck:
		// A stuck replica stays stuck until restarted; a duration would
		// silently mean something else, so it is refused.
		if f.Duration != 0 {
			return fieldErr(path+".duration", "not allowed for a stuck fault (it lasts until a restart)")
		}
	default:
		return fieldErr(path+".type", "unknown fault type %q (want %s or %s)", f.Type, FaultDependencyLost, FaultStuck)
	}
	return nil
}

func validateSettings(settings []Setting) error {
	if len(settings) == 0 {
		return fieldErr("settings", "must list at least one setting")
	}
	seen := map[string]bool{}
	for i, st := range settings {
		path := index("settings", i)
		if st.Name == "" {
			return fieldErr(path+".name", "must not be empty")
		}
		if seen[st.Name] {
			return fieldErr(path+".name", "duplicate setting name %q (names become run ids)", st.Name)
		}
		seen[st.Name] = true
		if err := validateSetting(path, st); err != nil {
			return err
		}
	}
	return nil
}

func validateSetting(path string, st Setting) error {
	if err := validateProbe(path+".liveness", st.Liveness); err != nil {
		return err
	}
	if p := st.Liveness; p != nil && p.Scope != ScopeProcess && p.Scope != ScopeDependency {
		return fieldErr(path+".liveness.scope", "unknown scope %q (want %s or %s)", p.Scope, ScopeProcess, ScopeDependency)
	}
	if err := validateProbe(path+".readiness", st.Readiness); err != nil {
		return err
	}
	if err := validateProbe(path+".startup", st.Startup); err != nil {
		return err
	}
	// Only liveness restarts on a narrower question; a scope elsewhere would
	// be ignored, so it is refused.
	if st.Readiness != nil && st.Readiness.Scope != "" {
		return fieldErr(path+".readiness.scope", "only a liveness probe has a scope")
	}
	if st.Startup != nil && st.Startup.Scope != "" {
		return fieldErr(path+".startup.scope", "only a liveness probe has a scope")
	}
	return nil
}

func validateProbe(path string, p *Probe) error {
	if p == nil {
		return nil
	}
	if p.Period < 1 {
		return fieldErr(path+".period", "must be at least 1, got %d", p.Period)
	}
	if p.Threshold < 1 {
		return fieldErr(path+".threshold", "must be at least 1, got %d", p.Threshold)
	}
	return nil
}
