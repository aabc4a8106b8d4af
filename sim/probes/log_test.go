package probes

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/internal/golden"
)

// logLine is any line of the canonical NDJSON log, decoded without the
// simulator's types so the test reads the file as a stranger would.
type logLine struct {
	Record     string         `json:"record"`
	Experiment string         `json:"experiment"`
	Run        string         `json:"run"`
	Type       string         `json:"type"`
	TMs        *float64       `json:"t_ms"`
	Subject    string         `json:"subject"`
	State      string         `json:"state"`
	Req        *int64         `json:"req"`
	Outcome    string         `json:"outcome"`
	Params     map[string]any `json:"params"`
	Attrs      map[string]any `json:"attrs"`
}

// columns are the probes analysis columns, recomputed from the log.
type columns struct {
	Restarts, Unnecessary, Killed, Loop, Early, Errors int
	HealthyReplicaRounds, Rounds                       int
	InService                                          float64
	Detection                                          []int
}

func fromResult(r Result) columns {
	return columns{r.Restarts, r.UnnecessaryRestarts, r.KilledDuringStartup, r.InRestartLoop, r.EarlyErrors,
		r.Errors, r.HealthyReplicaRounds, r.Rounds, r.InService(), r.DetectionRounds}
}

func readLog(t *testing.T, data []byte) []logLine {
	t.Helper()
	var lines []logLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var l logLine
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if l.Experiment != Experiment {
			t.Fatalf("line %d: experiment %q, want %q", n, l.Experiment, Experiment)
		}
		lines = append(lines, l)
	}
	return lines
}

func num(t *testing.T, m map[string]any, key string) int {
	t.Helper()
	v, ok := m[key].(float64)
	if !ok {
		t.Fatalf("attr %q: want a number, got %v", key, m[key])
	}
	return int(v)
}

// detection is one stuck replica found by liveness, to be put in order.
type detection struct{ round, replica, rounds int }

// analyze computes, per run, the columns the lead's SQL analysis will
// compute, from nothing but the log lines.
func analyze(t *testing.T, lines []logLine) map[string]columns {
	out := map[string]columns{}
	restarts := map[string]map[string]int{} // run → replica → probe restarts
	found := map[string][]detection{}
	rounds := 0
	for _, l := range lines {
		c := out[l.Run]
		switch {
		case l.Record == "experiment":
			rounds = num(t, l.Params, "rounds")
			continue
		case l.Record == "run":
			restarts[l.Run] = map[string]int{}
		case l.Record == "" && l.Outcome == "error":
			c.Errors++
			if l.Attrs["replica_state"] == string(Starting) {
				c.Early++
			}
		case l.Type == "state" && l.State == string(Healthy):
			c.HealthyReplicaRounds++
		case l.Type == "restart" && l.Attrs["reason"] != ReasonPlanned:
			c.Restarts++
			restarts[l.Run][l.Subject]++
			if l.State != string(Stuck) {
				c.Unnecessary++
			}
			if l.State == string(Starting) {
				c.Killed++
			}
			if l.State == string(Stuck) && l.Attrs["reason"] == ReasonLiveness {
				r := num(t, l.Attrs, "round")
				found[l.Run] = append(found[l.Run], detection{r, num(t, l.Attrs, "replica"), r - num(t, l.Attrs, "stuck_since_round")})
			}
		}
		out[l.Run] = c
	}
	for run, c := range out {
		c.Rounds = rounds
		c.InService = float64(c.HealthyReplicaRounds) / float64(rounds)
		for _, n := range restarts[run] {
			if n >= 3 {
				c.Loop++
			}
		}
		c.Detection = inOrder(found[run])
		out[run] = c
	}
	return out
}

func inOrder(ds []detection) []int {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].round != ds[j].round {
			return ds[i].round < ds[j].round
		}
		return ds[i].replica < ds[j].replica
	})
	var v []int
	for _, d := range ds {
		v = append(v, d.rounds)
	}
	return v
}

// edgeScenario reaches what the seed does not: an empty pool, a planned
// restart of a stuck replica, a replica that starts at once, a startup loop.
func edgeScenario() Scenario {
	return Scenario{Rounds: 40, RequestsPerRound: 7, StartupRounds: []int{3, 0, 12},
		PlannedRestarts: []Planned{{Replica: 0, Round: 5}},
		Faults: []Fault{
			{Replica: 0, Round: 4, Type: FaultStuck},
			{Replica: 1, Round: 0, Type: FaultDependencyLost, Duration: 6},
			{Replica: 2, Round: 20, Type: FaultStuck},
			{Replica: 1, Round: 30, Type: FaultStuck},
		},
		Settings: []Setting{
			{Name: "dependency scope", Liveness: &Probe{Period: 1, Threshold: 1, Scope: ScopeDependency},
				Readiness: &Probe{Period: 1, Threshold: 1}},
			{Name: "liveness only", Liveness: &Probe{Period: 1, Threshold: 2, Scope: ScopeProcess}},
			{Name: "slow startup", Liveness: &Probe{Period: 2, Threshold: 2, Scope: ScopeProcess},
				Readiness: &Probe{Period: 3, Threshold: 2}, Startup: &Probe{Period: 1, Threshold: 2}},
		}}
}

// The log alone must be enough for the probes analysis: recompute every
// column from it and compare with the simulator's own counters.
func TestLogSufficesForAnalysis(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		runs int
	}{
		{"seed with sweep", Config{Scenario: Default(), Sweep: true}, 4 + 18},
		{"edge cases", Config{Scenario: edgeScenario()}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			rep, err := Simulate(tc.cfg, &buf)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]columns{}
			for _, r := range rep.Settings {
				want[r.Setting] = fromResult(r)
			}
			for _, s := range rep.Sweep {
				want[s.Result.Setting] = fromResult(s.Result)
			}
			got := analyze(t, readLog(t, buf.Bytes()))
			if len(got) != tc.runs {
				t.Errorf("log has %d runs, want %d", len(got), tc.runs)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("columns from the log (-simulator +log):\n%s", diff)
			}
		})
	}
}

// The edge scenario must reach its edges, or the sufficiency test on it
// proves less than it claims.
func TestEdgeScenarioReachesEdges(t *testing.T) {
	var buf bytes.Buffer
	if _, err := Simulate(Config{Scenario: edgeScenario()}, &buf); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, l := range readLog(t, buf.Bytes()) {
		switch {
		case l.Record == "" && l.Attrs["replica"] == nil:
			seen["request with an empty pool"] = true
		case l.Record == "" && l.Attrs["replica_state"] == string(Starting):
			seen["early error"] = true
		case l.Type == "restart" && l.Attrs["reason"] == ReasonPlanned && l.State == string(Stuck):
			seen["planned restart of a stuck replica"] = true
		case l.Type == "restart" && l.Attrs["reason"] == ReasonStartup:
			seen["startup probe restart"] = true
		case l.Type == "restart" && l.Attrs["reason"] == ReasonLiveness && l.State == string(NoDependency):
			seen["liveness restart on a lost dependency"] = true
		}
	}
	want := map[string]bool{"request with an empty pool": true, "early error": true,
		"planned restart of a stuck replica": true, "startup probe restart": true,
		"liveness restart on a lost dependency": true}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("edges reached (-want +got):\n%s", diff)
	}
}

// TestLogShape checks the per-run line counts and the restart attrs that the
// analysis relies on.
func TestLogShape(t *testing.T) {
	var buf bytes.Buffer
	if _, err := Simulate(Config{Scenario: Default()}, &buf); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, l := range readLog(t, buf.Bytes()) {
		key := l.Record + "/" + l.Type
		counts[key]++
		if l.Type == "restart" {
			_, has := l.Attrs["stuck_since_round"]
			if has != (l.State == string(Stuck)) {
				t.Errorf("restart %v: stuck_since_round present=%v for state %s", l.Attrs, has, l.State)
			}
		}
		if l.TMs != nil && l.Attrs != nil && *l.TMs != float64(num(t, l.Attrs, "round")*RoundMs) {
			t.Errorf("t_ms %v does not match round %v", *l.TMs, l.Attrs["round"])
		}
	}
	want := map[string]int{"experiment/": 1, "run/": 4, "/": 4 * 180 * 50, "event/state": 4 * 180 * 8,
		"event/fault": 4 * 4, "event/restart": counts["event/restart"]}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("line counts (-want +got):\n%s", diff)
	}
}

// The golden shows the layout: the header lines, every fault and restart
// event, and one whole round (20, the rollout) of one run.
func TestLogGolden(t *testing.T) {
	var buf bytes.Buffer
	if _, err := Simulate(Config{Scenario: Default()}, &buf); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, text := range strings.SplitAfter(buf.String(), "\n") {
		var l logLine
		if text == "" || json.Unmarshal([]byte(text), &l) != nil {
			continue
		}
		round20 := l.Run == "liveness + readiness" && l.TMs != nil && *l.TMs == 20*RoundMs
		if l.Record == "experiment" || l.Record == "run" || l.Type == "fault" || l.Type == "restart" || round20 {
			b.WriteString(text)
		}
	}
	golden.Check(t, "testdata/log.golden", []byte(b.String()))
}

func ExampleReport_Text() {
	rep, _ := Simulate(Config{Scenario: Default()}, nil)
	fmt.Println(strings.Split(rep.Text(), "\n")[0])
	// Output: 8 replicas, 180 rounds, 50 requests per round
}
