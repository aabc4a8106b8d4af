package storm

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParsePolicy(t *testing.T) {
	got, err := ParsePolicy(" four layers = 3, 3,3,3 @ 0.2")
	if err != nil {
		t.Fatal(err)
	}
	want := Policy{Name: "four layers", Layers: []int{3, 3, 3, 3}, Budget: budget(0.2)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
	if got.Allowed() != 81 {
		t.Errorf("allowed %d, want 81", got.Allowed())
	}
}

func TestParsePolicyErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"3,3,3":      "want NAME=R,R,...[@BUDGET]",
		"=3":         "want NAME=R,R,...[@BUDGET]",
		"x=3,0":      `layer attempts "0"`,
		"x=3,,3":     `layer attempts ""`,
		"x=3@-0.1":   `budget "-0.1"`,
		"x=3@plenty": `budget "plenty"`,
	} {
		_, err := ParsePolicy(spec)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParsePolicy(%q) = %v, want an error containing %q", spec, err, want)
		}
	}
}

func TestSelectScenarios(t *testing.T) {
	got, err := SelectScenarios([]string{"degradation", ScenarioOutage})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ScenarioDegradation, ScenarioOutage}
	if diff := cmp.Diff(want, []string{got[0].Name, got[1].Name}); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	if _, err := SelectScenarios([]string{"flood"}); err == nil {
		t.Error("unknown scenario accepted")
	}
}

func TestTicks(t *testing.T) {
	if n, err := Ticks(5*time.Second, 10); n != 500 || err != nil {
		t.Errorf("Ticks(5s) = %d, %v; want 500", n, err)
	}
	for _, d := range []time.Duration{5005 * time.Millisecond, -time.Second} {
		if _, err := Ticks(d, 10); err == nil {
			t.Errorf("Ticks(%v) accepted", d)
		}
	}
}

func TestValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("seed config rejected: %v", err)
	}
	cases := map[string]func(*Config){
		"fault start at tick 4000":                      func(c *Config) { c.Params.FaultStart = 4000 },
		"ends at tick 4400, after the run's 4000 ticks": func(c *Config) { c.Params.FaultStart = 3400 },
		"capacity -1 is negative":                       func(c *Config) { c.Params.Capacity = -1 },
		`configuration "denemesiz" given twice`:         func(c *Config) { c.Policies = append(c.Policies, c.Policies[0]) },
		`holds "|"`:                                     func(c *Config) { c.Policies[0].Name = "a|b" },
		`scenario "saglikli" given twice`:               func(c *Config) { c.Scenarios = append(c.Scenarios, c.Scenarios[0]) },
	}
	for want, change := range cases {
		c := DefaultConfig()
		change(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error containing %q", err, want)
		}
	}
}
