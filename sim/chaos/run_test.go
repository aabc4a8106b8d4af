package chaos

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite fixtures/chaos/gunluk.json from a run with the defaults")

var fixture = filepath.Join("..", "..", "fixtures", "chaos", "gunluk.json")

// TestRunMatchesFixture runs the real service and client with the defaults
// (under a second of real delays) and compares the log with the committed
// fixture, which is byte for byte the seed's own gunluk.json.
func TestRunMatchesFixture(t *testing.T) {
	res := defaultRun(t)
	got, err := res.Log.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(fixture, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readFixture(t)
	if d := cmp.Diff(want, res.Log); d != "" {
		t.Fatalf("log differs from %s (-want +got):\n%s", fixture, d)
	}
	wantBytes, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(wantBytes), string(got)); d != "" {
		t.Errorf("gunluk.json bytes differ from %s (-want +got):\n%s", fixture, d)
	}
}

// The service's own counts: every batch arrives; the plan tags 11 batches in
// the experiment run, and noise pauses batches 17, 21, 67 and 88 in both runs
// (none of them is tagged).
func TestRunServiceCounts(t *testing.T) {
	res := defaultRun(t)
	got := []Counts{res.Control.Counts, res.Experiment.Counts}
	want := []Counts{{Batches: 100, Tagged: 0, Paused: 4}, {Batches: 100, Tagged: 11, Paused: 4}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("service counts [control, experiment] (-want +got):\n%s", d)
	}
}

var (
	runOnceForTests sync.Once
	testRun         Result
	testRunErr      error
	testRunFlips    []string
)

// attempts bounds the reruns of a run that the machine's load disturbed.
const attempts = 6

// defaultRun runs the simulator with the defaults once per test binary, since
// each run spends real time in injected delays.
//
// A run with flips (an outcome that disagrees with the service's own record
// of what it did, see RunStats.Flips) says the machine stalled for about the
// whole timeout, as happens next to a parallel cgo build; such a run is
// repeated, up to attempts times. A logic error is not hidden by this: it
// makes the log differ from the fixture without flips, or flips every run.
func defaultRun(t *testing.T) Result {
	t.Helper()
	runOnceForTests.Do(func() {
		for range attempts {
			testRun, testRunErr = Run(context.Background(), DefaultConfig())
			f := describeFlips(testRun)
			if testRunErr != nil || f == "" {
				return
			}
			testRunFlips = append(testRunFlips, f)
		}
	})
	for _, f := range testRunFlips {
		t.Logf("rerun after a load-disturbed run: %s", f)
	}
	if testRunErr != nil {
		t.Fatal(testRunErr)
	}
	if f := describeFlips(testRun); f != "" {
		t.Fatalf("%d runs in a row disturbed, last: %s", attempts, f)
	}
	return testRun
}

func describeFlips(r Result) string {
	if len(r.Control.Flips)+len(r.Experiment.Flips) == 0 {
		return ""
	}
	return fmt.Sprintf("flipped batches: control %v, experiment %v; slowest in-time answers %v, %v",
		r.Control.Flips, r.Experiment.Flips, r.Control.SlowestInTime, r.Experiment.SlowestInTime)
}

func readFixture(t *testing.T) Log {
	t.Helper()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var l Log
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("%s: %v", fixture, err)
	}
	return l
}
