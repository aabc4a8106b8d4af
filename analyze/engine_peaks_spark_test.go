package analyze

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-dev/rewind/store"
)

// Aligned peaks on Spark equal the local ones on the fixtures with times and
// on the edge log (negative t_ms, rows on bucket edges, count > 1, ties
// between buckets), at resolutions from 1 ms up; sliding windows and --by
// are refused, never answered.
func TestPeaksOnSpark(t *testing.T) {
	sparkURL(t)
	// One dataset of several experiments (one session), and the storm
	// fixture, whose experiment has the retry fixture's name, in another.
	edge := filepath.Join(t.TempDir(), "edge.ndjson")
	if err := os.WriteFile(edge, []byte(edgeLog(60)), 0o644); err != nil {
		t.Fatal(err)
	}
	local := ingestedDB(t, "../fixtures/peaks/sekil1.csv", "../fixtures/k6/chaos.json", "../fixtures/retry/tiny.ndjson", edge)
	r := onSpark(t, sparkDataset(t, local))
	names, err := store.Experiments(local)
	if err != nil || len(names) != 4 {
		t.Fatalf("experiments %v, %v: want 4", names, err)
	}
	for _, exp := range names {
		comparePeaks(t, exp, local, r)
	}
	storm := ingestedDB(t, "../fixtures/storm/tiny.ndjson")
	comparePeaks(t, "tiny", storm, onSpark(t, sparkDataset(t, storm)))
	for _, o := range []PeaksOptions{{Sliding: true}, {By: []string{"outcome"}}} {
		if _, err := PeaksOn(r, o); err == nil {
			t.Errorf("%+v on Spark: want a refusal", o)
		}
	}
}

func comparePeaks(t *testing.T, name string, local store.Querier, r *Remote) {
	t.Helper()
	for _, res := range [][]int64{nil, {1, 7, 10, 100}, {3, 1000, 60000}} {
		o := PeaksOptions{Experiment: name, ResolutionsMs: res}
		want, err := Peaks(local, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := PeaksOn(r, o)
		if err != nil {
			t.Fatalf("%s on Spark: %v", name, err)
		}
		if a, b := asJSON(t, want), asJSON(t, got); a != b || len(want.Notes) != len(got.Notes) {
			t.Errorf("%s %v: local\n%s\nSpark\n%s", name, res, a, b)
		}
	}
}

// An experiment without times is refused on Spark as it is locally, with
// the same error and before its resolutions are read (a bad one included),
// never answered with an empty table; a timed one with a bad resolution is
// refused for the resolution on both.
func TestPeaksOnSparkUntimed(t *testing.T) {
	sparkURL(t)
	local := ingestedDB(t, "../fixtures/chaos/gunluk.json", "../fixtures/retry/tiny.ndjson")
	r := onSpark(t, sparkDataset(t, local))
	for _, o := range []PeaksOptions{{Experiment: "gunluk"}, {Experiment: "gunluk", ResolutionsMs: []int64{0}},
		{Experiment: "tiny", ResolutionsMs: []int64{0}}} {
		_, want := Peaks(local, o)
		got, err := PeaksOn(r, o)
		if want == nil || err == nil || err.Error() != want.Error() {
			t.Errorf("%+v: local error %v; on Spark %v (result %v)", o, want, err, got)
		}
	}
}
