package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/sqllit"

	"github.com/rewind-dev/rewind/store"
)

// Peaks on Spark, aligned and sliding, equal the local ones on the
// fixtures with times and on the edge logs (negative t_ms, rows on bucket
// edges and exactly a resolution apart, times that are not whole ms,
// count > 1, ties between buckets and between windows), at resolutions
// from 1 ms up (powers of two and others), and by groups of columns and
// status_class (a NULL group among them); the sliding step's rows and the
// aligned step's equal _sliding_peaks's and _aligned_peaks's; --by an
// attrs key alike (engine_by_attrs_spark_test.go has its kinds).
func TestPeaksOnSpark(t *testing.T) {
	sparkURL(t)
	t.Parallel() // a step waits mostly on the cluster's scheduling: two tests overlap it
	// One dataset of several experiments (one session), and the storm
	// fixture, whose experiment has the retry fixture's name, in another.
	edge, sliding := filepath.Join(t.TempDir(), "edge.ndjson"), filepath.Join(t.TempDir(), "sliding.ndjson")
	if err := os.WriteFile(edge, []byte(edgeLog(60)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sliding, []byte(slidingEdgeLog(3000)), 0o644); err != nil {
		t.Fatal(err)
	}
	local := ingestedDB(t, "../fixtures/peaks/sekil1.csv", "../fixtures/k6/chaos.json", "../fixtures/retry/tiny.ndjson", edge, sliding)
	r := onSpark(t, sparkDataset(t, local))
	names, err := store.Experiments(local)
	if err != nil || len(names) != 5 {
		t.Fatalf("experiments %v, %v: want 5", names, err)
	}
	for _, exp := range names {
		comparePeaks(t, exp, local, r, exp == "edge" || exp == "slide")
	}
	storm := ingestedDB(t, "../fixtures/storm/tiny.ndjson")
	comparePeaks(t, "tiny", storm, onSpark(t, sparkDataset(t, storm)), false)
	// an attrs key alike; a field that is refused locally is refused alike
	comparePeaksWith(t, local, r, PeaksOptions{Experiment: "chaos", By: []string{"method"}, Sliding: true})
	for _, by := range [][]string{{"run"}, {"outcome", "outcome"}, {""}} {
		o := PeaksOptions{Experiment: "chaos", By: by}
		_, want := Peaks(local, o)
		if _, err := PeaksOn(r, o); want == nil || err == nil || err.Error() != want.Error() {
			t.Errorf("%+v: local error %v, on Spark %v", o, want, err)
		}
	}
}

// slidingEdgeLog is a log of two runs whose times put sliding windows on
// their edges: times on power-of-two bucket edges and pairs exactly 1, 7,
// 10, 100 and 1000 ms apart (a window is half-open), times in tenths (t +
// res rounds), negative times, count > 1, and repeated patterns (ties).
func slidingEdgeLog(n int) string {
	var b strings.Builder
	for _, run := range []string{"a", "b"} {
		for i := range n {
			var t float64
			switch i % 5 {
			case 0:
				t = float64(i/5%40*128 - 1024)
			case 1:
				t = float64(i/5%40*128-1024) + []float64{1, 7, 10, 100, 1000}[i/5%5]
			case 2:
				t = float64(i%997)/10 - 30
			default:
				t = float64((i*37)%4000 - 500)
			}
			if run == "b" {
				t += 0.5
			}
			fmt.Fprintf(&b, `{"experiment":"slide","run":"%s","req":%d,"t_ms":%s,"count":%d}`+"\n", run, i, strconv.FormatFloat(t, 'g', -1, 64), 1+i%7/5)
		}
	}
	return b.String()
}

// comparePeaks compares the default resolutions and a group, aligned and
// sliding; with every, also the resolutions and groups that the edge logs
// put on their edges (on a fixture they cost the suite minutes of Spark
// steps and find nothing the edge logs do not).
func comparePeaks(t *testing.T, name string, local store.Querier, r *Remote, every bool) {
	t.Helper()
	if !every {
		for _, o := range []PeaksOptions{{}, {Sliding: true}, {Sliding: true, By: []string{"outcome"}}} {
			o.Experiment = name
			comparePeaksWith(t, local, r, o)
		}
		return
	}
	for _, res := range [][]int64{nil, {1, 7, 10, 100}, {3, 1000, 60000}} {
		for _, sliding := range []bool{false, true} {
			comparePeaksWith(t, local, r, PeaksOptions{Experiment: name, ResolutionsMs: res, Sliding: sliding})
		}
	}
	// groups (a NULL one among them), aligned and sliding
	for _, o := range []PeaksOptions{{By: []string{"outcome"}}, {ResolutionsMs: []int64{1, 7, 10, 100}, Sliding: true, By: []string{"outcome"}},
		{ResolutionsMs: []int64{1, 7, 10, 100}, Sliding: true, By: []string{"status_class", "tagged"}}} {
		o.Experiment = name
		comparePeaksWith(t, local, r, o)
	}
}

func comparePeaksWith(t *testing.T, local store.Querier, r *Remote, o PeaksOptions) {
	t.Helper()
	name := o.Experiment
	want, err := Peaks(local, o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, err := PeaksOn(r, o)
	if err != nil {
		t.Fatalf("%s on Spark: %v", name, err)
	}
	if a, b := asJSON(t, want), asJSON(t, got); a != b || len(want.Notes) != len(got.Notes) {
		t.Errorf("%s %+v: local\n%s\nSpark\n%s", name, o, a, b)
	}
	if !o.Sliding {
		return
	}
	// the resolutions the steps ran at: the result's
	col := slices.IndexFunc(got.Columns, func(c Column) bool { return c.Name == "resolution_ms" })
	var kept []int64
	for _, row := range got.Rows {
		if x := row[col].(int64); !slices.Contains(kept, x) {
			kept = append(kept, x)
		}
	}
	slices.Sort(kept)
	g, err := groupBy(local, name, o.By)
	if err != nil {
		t.Fatal(err)
	}
	key := "true"
	if g.key != "" {
		key = "{'v': " + g.key + "}"
	}
	args := sqllit.String(name) + ", " + key + ", " + bigintList(kept)
	q := `SELECT run, gk, res, n, t_ms FROM _sliding_peaks(` + args + `, true)`
	sameStep(t, "_remote_sliding", local, q, r.Querier(), q)
	q = `SELECT * FROM _aligned_peaks(` + args + `, []::BIGINT[])`
	sameStep(t, "_peak_runs", local, q, r.Querier(), q)
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
