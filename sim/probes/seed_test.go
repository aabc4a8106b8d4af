package probes

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seedRow is one printed row of the seed's tables, typed in by hand from the
// seed's output so that this test does not trust anything the simulator
// wrote itself.
type seedRow struct {
	Restarts, Unnecessary, Killed, Loop, Early, Errors int
	InService                                          string
	Detection                                          []int
}

func row(r Result) seedRow {
	return seedRow{r.Restarts, r.UnnecessaryRestarts, r.KilledDuringStartup, r.InRestartLoop,
		r.EarlyErrors, r.Errors, fixed2(r), r.DetectionRounds}
}

func TestSeedSettingsTable(t *testing.T) {
	want := map[string]seedRow{
		"no probes":             {0, 0, 0, 0, 300, 1408, "6.79", nil},
		"single combined probe": {23, 21, 20, 2, 0, 330, "5.89", []int{10, 10}},
		"liveness + readiness":  {22, 20, 20, 2, 0, 0, "5.89", []int{10, 10}},
		"plus startup":          {2, 0, 0, 0, 0, 0, "7.39", []int{10, 10}},
	}
	rep, err := Simulate(Config{Scenario: Default()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]seedRow{}
	for _, r := range rep.Settings {
		got[r.Setting] = row(r)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("settings table (-want +got):\n%s", diff)
	}
}

// sweepRow holds the sweep table's columns; tolerance is period × threshold.
type sweepRow struct {
	Period, Threshold, Tolerance int
	Detection                    []int
	Killed, Loop                 int
	InService                    string
}

func TestSeedSweepTables(t *testing.T) {
	without := []sweepRow{
		{2, 2, 4, []int{2, 2}, 113, 4, "5.29"},
		{2, 3, 6, []int{4, 4}, 52, 2, "5.96"},
		{2, 6, 12, []int{10, 10}, 26, 2, "5.89"},
		{5, 2, 10, []int{5, 5}, 32, 2, "5.94"},
		{5, 3, 15, []int{10, 10}, 20, 2, "5.89"},
		{5, 6, 30, []int{25, 25}, 0, 0, "7.22"},
		{10, 2, 20, []int{10, 10}, 16, 2, "5.89"},
		{10, 3, 30, []int{20, 20}, 2, 0, "7.06"},
		{10, 6, 60, []int{50}, 0, 0, "7.03"},
	}
	with := []sweepRow{
		{2, 2, 4, []int{2, 2}, 0, 0, "7.48"},
		{2, 3, 6, []int{4, 4}, 0, 0, "7.46"},
		{2, 6, 12, []int{10, 10}, 0, 0, "7.39"},
		{5, 2, 10, []int{5, 5}, 0, 0, "7.44"},
		{5, 3, 15, []int{10, 10}, 0, 0, "7.39"},
		{5, 6, 30, []int{25, 25}, 0, 0, "7.22"},
		{10, 2, 20, []int{10, 10}, 0, 0, "7.39"},
		{10, 3, 30, []int{20, 20}, 0, 0, "7.28"},
		{10, 6, 60, []int{50}, 0, 0, "7.03"},
	}
	rep, err := Simulate(Config{Scenario: Default(), Sweep: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[bool][]sweepRow{}
	for _, s := range rep.Sweep {
		r := s.Result
		got[s.WithStartup] = append(got[s.WithStartup], sweepRow{s.Period, s.Threshold, s.Period * s.Threshold,
			r.DetectionRounds, r.KilledDuringStartup, r.InRestartLoop, fixed2(r)})
	}
	if diff := cmp.Diff(map[bool][]sweepRow{false: without, true: with}, got); diff != "" {
		t.Errorf("sweep tables (-want +got), key true = with startup probe:\n%s", diff)
	}
}
