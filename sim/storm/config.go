package storm

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The seed's names for its scenarios and configurations. They are data: run
// names in the log are built from them, so logs written by the seed and by
// this port name their runs alike.
const (
	ScenarioHealthy     = "saglikli"
	ScenarioOutage      = "kesinti (1 s)"
	ScenarioDegradation = "bozulma (10 s)"

	PolicyNone     = "denemesiz"
	PolicyGateway  = "yalniz gecit (3)"
	PolicyTwo      = "iki katman (3x3)"
	PolicyThree    = "uc katman (3x3x3)"
	PolicyBudgeted = "uc katman + butce 0,30"
)

// DefaultParams returns the seed's parameters: 40 s of 10 ms ticks, a fault
// at the 5th second, a dependency that serves 6 calls per tick (600/s) for
// 97.22 requests/s, backoff base 2 and cap 32 ticks.
func DefaultParams() Params {
	return Params{
		Seed:          20260802,
		Ticks:         4000,
		TickMs:        10,
		RatePerSecond: 97.22,
		Capacity:      6,
		FaultStart:    500,
		SparseFailure: 0.025,
		Backoff:       Backoff{Base: 2, Cap: 32},
	}
}

// SeedScenarios returns the fault-free day, a 1 s outage (capacity 0) and a
// 10 s degradation (capacity 1), in the seed's order.
func SeedScenarios() []Scenario {
	return []Scenario{
		{Key: "healthy", Name: ScenarioHealthy},
		{Key: "outage", Name: ScenarioOutage, Window: 100, Capacity: 0},
		{Key: "degradation", Name: ScenarioDegradation, Window: 1000, Capacity: 1},
	}
}

// SeedPolicies returns the seed's five configurations of the chain
// gateway → event endpoint → state store.
func SeedPolicies() []Policy {
	return []Policy{
		{Name: PolicyNone, Layers: []int{1, 1, 1}},
		{Name: PolicyGateway, Layers: []int{3, 1, 1}},
		{Name: PolicyTwo, Layers: []int{3, 3, 1}},
		{Name: PolicyThree, Layers: []int{3, 3, 3}},
		{Name: PolicyBudgeted, Layers: []int{3, 3, 3}, Budget: budget(0.3)},
	}
}

func budget(b float64) *float64 { return &b }

// Config is one invocation of the experiment.
type Config struct {
	Params    Params
	Scenarios []Scenario
	Policies  []Policy
	// ReadThresholdTicks is the caller's read threshold the worst-case wait
	// is compared with (20 ticks, 200 ms).
	ReadThresholdTicks int
	// SensitivityBudget is the tighter budget tried on the outage for the
	// sensitivity line.
	SensitivityBudget float64
}

// DefaultConfig returns the seed's experiment: 3 scenarios × 5 policies.
func DefaultConfig() Config {
	p := DefaultParams()
	return Config{
		Params:             p,
		Scenarios:          SeedScenarios(),
		Policies:           SeedPolicies(),
		ReadThresholdTicks: 20,
		SensitivityBudget:  0.1,
	}
}

// Validate rejects configs the model cannot run, with messages that name the
// offending value so the CLI can pass them on.
func (c Config) Validate() error {
	p := c.Params
	switch {
	case p.TickMs <= 0 || 1000%p.TickMs != 0:
		return fmt.Errorf("tick of %d ms does not divide a second", p.TickMs)
	case p.Ticks <= 0:
		return fmt.Errorf("run length %d ticks is not positive", p.Ticks)
	case p.Capacity < 0:
		return fmt.Errorf("capacity %d is negative", p.Capacity)
	case p.FaultStart < 0 || p.FaultStart >= p.Ticks:
		return fmt.Errorf("fault start at tick %d is outside the run of %d ticks", p.FaultStart, p.Ticks)
	case p.Backoff.Base < 1 || p.Backoff.Cap < p.Backoff.Base:
		return fmt.Errorf("backoff base %d and cap %d: need 1 ≤ base ≤ cap", p.Backoff.Base, p.Backoff.Cap)
	case c.ReadThresholdTicks <= 0:
		return fmt.Errorf("read threshold %d ticks is not positive", c.ReadThresholdTicks)
	case c.SensitivityBudget < 0:
		return fmt.Errorf("sensitivity budget %g is negative", c.SensitivityBudget)
	}
	if err := validateScenarios(c.Scenarios, p); err != nil {
		return err
	}
	return validatePolicies(c.Policies)
}

// validateScenarios also keeps every fault window inside the run: the window
// rate divides by the window's full length.
func validateScenarios(scs []Scenario, p Params) error {
	seen := map[string]bool{}
	for _, sc := range scs {
		if seen[sc.Name] {
			return fmt.Errorf("scenario %q given twice", sc.Name)
		}
		seen[sc.Name] = true
		if sc.Name == "" || strings.Contains(sc.Name, "|") {
			return fmt.Errorf("scenario name %q is empty or holds \"|\"", sc.Name)
		}
		if sc.Window < 0 || sc.Capacity < 0 {
			return fmt.Errorf("scenario %q: window and capacity must not be negative", sc.Name)
		}
		if end := p.FaultStart + sc.Window; end > p.Ticks {
			return fmt.Errorf("scenario %q: fault window ends at tick %d, after the run's %d ticks", sc.Name, end, p.Ticks)
		}
	}
	return nil
}

// validatePolicies also keeps "|" out of names: it separates config from
// scenario in run names.
func validatePolicies(pols []Policy) error {
	seen := map[string]bool{}
	for _, pol := range pols {
		switch {
		case pol.Name == "" || strings.Contains(pol.Name, "|"):
			return fmt.Errorf("configuration name %q is empty or holds \"|\"", pol.Name)
		case seen[pol.Name]:
			return fmt.Errorf("configuration %q given twice", pol.Name)
		case len(pol.Layers) == 0:
			return fmt.Errorf("configuration %q has no layers", pol.Name)
		case pol.Budget != nil && *pol.Budget < 0:
			return fmt.Errorf("configuration %q: budget %g is negative", pol.Name, *pol.Budget)
		}
		seen[pol.Name] = true
		for _, r := range pol.Layers {
			if r < 1 {
				return fmt.Errorf("configuration %q: a layer makes %d attempts, need at least 1", pol.Name, r)
			}
		}
	}
	return nil
}

// ParsePolicy reads a configuration written as NAME=R,R,...[@BUDGET]: the
// attempts of each layer, gateway first, and optionally the retry budget as
// extra calls per primary call. "four layers=3,3,3,3@0.2" is four layers of
// three attempts under a budget of 0.2.
func ParsePolicy(spec string) (Policy, error) {
	name, rest, ok := strings.Cut(spec, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Policy{}, fmt.Errorf("configuration %q: want NAME=R,R,...[@BUDGET]", spec)
	}
	layersText, budgetText, hasBudget := strings.Cut(rest, "@")
	pol := Policy{Name: name}
	for _, f := range strings.Split(layersText, ",") {
		r, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || r < 1 {
			return Policy{}, fmt.Errorf("configuration %q: layer attempts %q is not a whole number ≥ 1", spec, f)
		}
		pol.Layers = append(pol.Layers, r)
	}
	if hasBudget {
		b, err := strconv.ParseFloat(strings.TrimSpace(budgetText), 64)
		if err != nil || b < 0 {
			return Policy{}, fmt.Errorf("configuration %q: budget %q is not a number ≥ 0", spec, budgetText)
		}
		pol.Budget = &b
	}
	return pol, nil
}

// SelectScenarios returns the seed scenarios named by key (healthy, outage,
// degradation) or by the seed's name, in the order given.
func SelectScenarios(names []string) ([]Scenario, error) {
	var out []Scenario
	for _, n := range names {
		sc, ok := seedScenario(strings.TrimSpace(n))
		if !ok {
			return nil, fmt.Errorf("unknown scenario %q: want healthy, outage or degradation", n)
		}
		out = append(out, sc)
	}
	return out, nil
}

func seedScenario(name string) (Scenario, bool) {
	for _, sc := range SeedScenarios() {
		if sc.Key == name || sc.Name == name {
			return sc, true
		}
	}
	return Scenario{}, false
}

// Ticks converts a duration to whole ticks of tickMs milliseconds; a duration
// that falls between ticks is an error rather than silently rounded.
func Ticks(d time.Duration, tickMs int) (int, error) {
	tick := time.Duration(tickMs) * time.Millisecond
	if d < 0 || d%tick != 0 {
		return 0, fmt.Errorf("%v is not a whole number of %v ticks", d, tick)
	}
	return int(d / tick), nil
}
