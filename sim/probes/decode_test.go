package probes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func seedScenarioText(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "probes", "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Each case breaks the seed scenario in one place; the error must name the
// field by its JSON path so the user can find it.
func TestDecodeScenarioErrors(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"unknown-fault-type", `"round": 120, "type": "dependency_lost"`, `"round": 120, "type": "boom"`,
			`faults[2].type: unknown fault type "boom" (want dependency_lost or stuck)`},
		{"fault-replica-out-of-range", `{"replica": 5, "round": 140`, `{"replica": 8, "round": 140`,
			`faults[3].replica: replica 8 out of range (want 0..7, one per startup_rounds entry)`},
		{"negative-period", `"startup": {"period": 5`, `"startup": {"period": -5`,
			`settings[3].startup.period: must be at least 1, got -5`},
		{"zero-threshold", `"threshold": 3, "scope": "dependency"`, `"threshold": 0, "scope": "dependency"`,
			`settings[1].liveness.threshold: must be at least 1, got 0`},
		{"unknown-scope", `"scope": "dependency"`, `"scope": "network"`,
			`settings[1].liveness.scope: unknown scope "network" (want process or dependency)`},
		{"missing-scope", `"threshold": 3, "scope": "process"},
     "readiness": {"period": 2, "threshold": 1}},`, `"threshold": 3},
     "readiness": {"period": 2, "threshold": 1}},`,
			`settings[2].liveness.scope: required`},
		{"unknown-top-level-key", `"rounds": 180,`, `"rounds": 180, "round_ms": 5,`,
			`round_ms: unknown key (want rounds, requests_per_round, startup_rounds, planned_restarts, faults or settings)`},
		{"scope-on-readiness", `"readiness": {"period": 5, "threshold": 3}`, `"readiness": {"period": 5, "threshold": 3, "scope": "process"}`,
			`settings[1].readiness.scope: unknown key (want period or threshold)`},
		{"string-for-integer", `"requests_per_round": 50`, `"requests_per_round": "50"`,
			`requests_per_round: want an integer, got "50"`},
		{"fractional-duration", `"duration": 18`, `"duration": 1.5`,
			`faults[0].duration: want an integer, got 1.5`},
		{"stuck-with-duration", `"round": 80, "type": "stuck"`, `"round": 80, "type": "stuck", "duration": 3`,
			`faults[1].duration: not allowed for a stuck fault (it lasts until a restart)`},
		{"dependency-lost-without-duration", `, "duration": 10`, ``,
			`faults[2].duration: must be at least 1 for a dependency_lost fault, got 0`},
		{"missing-rounds", `"rounds": 180,`, ``, `rounds: required`},
		{"planned-round-out-of-range", `{"replica": 7, "round": 20}`, `{"replica": 7, "round": 180}`,
			`planned_restarts[1].round: round 180 out of range (want 0..179)`},
		{"negative-startup-rounds", `[6, 6, 6,`, `[6, -6, 6,`, `startup_rounds[1]: must not be negative, got -6`},
		{"duplicate-setting-name", `{"name": "plus startup"`, `{"name": "no probes"`,
			`settings[3].name: duplicate setting name "no probes" (names become run ids)`},
		{"empty-setting-name", `{"name": "no probes"}`, `{"name": ""}`, `settings[0].name: must not be empty`},
		{"setting-not-an-object", `{"name": "no probes"}`, `"no probes"`, `settings[0]: want a JSON object, got "no probes"`},
		{"startup-rounds-not-a-list", `"startup_rounds": [6, 6, 6, 6, 6, 6, 25, 25]`, `"startup_rounds": 8`,
			`startup_rounds: want a list, got 8`},
		{"truncated", `}
  ]
}`, `}`, `27:1: unexpected end of JSON input`},
		{"syntax-error", `"rounds": 180,`, `"rounds": 180,,`, `2:17: invalid character ',' looking for beginning of object key string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := seedScenarioText(t)
			if !strings.Contains(text, tc.old) {
				t.Fatalf("fixture lacks %q", tc.old)
			}
			_, err := DecodeScenario([]byte(strings.Replace(text, tc.old, tc.new, 1)))
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadScenarioNamesFileAndField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scenario.json")
	text := strings.Replace(seedScenarioText(t), `"round": 120, "type": "dependency_lost"`, `"round": 120, "type": "boom"`, 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadScenario(path)
	want := path + `: faults[2].type: unknown fault type "boom" (want dependency_lost or stuck)`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Path != "faults[2].type" {
		t.Errorf("want a *FieldError for faults[2].type, got %#v", err)
	}
}

func TestSweepNameClash(t *testing.T) {
	sc := Default()
	sc.Settings[0].Name = Sweep()[0].Setting.Name
	_, err := Simulate(Config{Scenario: sc, Sweep: true}, nil)
	want := `settings[0].name: "sweep liveness period 2 threshold 2" is also a sweep setting's name (rename it or drop the sweep)`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
