package retry

import (
	"encoding/csv"
	"os"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readSeries reads a pre-binned run,t_ms,count CSV into points per run.
func readSeries(t *testing.T, path string) map[string][]Point {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := recs[0]; !cmp.Equal(got, []string{"run", "t_ms", "count"}) {
		t.Fatalf("%s: header %v, want run,t_ms,count", path, got)
	}
	out := map[string][]Point{}
	for i, r := range recs[1:] {
		tms, err1 := strconv.ParseFloat(r[1], 64)
		n, err2 := strconv.ParseInt(r[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s:%d: bad row %v", path, i+2, r)
		}
		out[r[0]] = append(out[r[0]], Point{TMs: tms, Count: n})
	}
	return out
}

// TestSekil1Peaks recomputes the seed's Şekil 2 peak columns from its own
// Şekil 1 series: 100 ms peaks from the buckets themselves and 1 s peaks from
// buckets aligned on whole seconds, [k·1000, (k+1)·1000) ms.
func TestSekil1Peaks(t *testing.T) {
	series := readSeries(t, "../../fixtures/peaks/sekil1.csv")
	want := map[string][2]Peak{
		"A": {{Count: 232, AtMs: 10000}, {Count: 275, AtMs: 10000}},
		"B": {{Count: 143, AtMs: 10200}, {Count: 229, AtMs: 10000}},
		"C": {{Count: 76, AtMs: 10000}, {Count: 225, AtMs: 10000}},
	}
	got := map[string][2]Peak{}
	for run, pts := range series {
		got[run] = [2]Peak{AlignedPeak(pts, 100), AlignedPeak(pts, 1000)}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("peaks (-want +got):\n%s", diff)
	}
}

// TestPreBinnedEqualsRaw checks that counts weigh like repeated rows.
func TestPreBinnedEqualsRaw(t *testing.T) {
	series := readSeries(t, "../../fixtures/peaks/sekil1.csv")
	for run, pts := range series {
		var raw []Point
		for _, p := range pts {
			for i := range p.Count {
				raw = append(raw, Point{TMs: p.TMs + float64(i)*99/float64(p.Count), Count: 1})
			}
		}
		for _, w := range []float64{100, 1000} {
			if a, b := AlignedPeak(pts, w), AlignedPeak(raw, w); a != b {
				t.Errorf("run %s width %v: binned %+v, raw %+v", run, w, a, b)
			}
		}
	}
}

func TestQuantileCont(t *testing.T) {
	xs := []float64{4, 1, 3, 2}
	for q, want := range map[float64]float64{0: 1, 0.5: 2.5, 0.95: 3.85, 1: 4} {
		if got := quantileCont(xs, q); got-want > 1e-9 || want-got > 1e-9 {
			t.Errorf("quantileCont(%v) = %v, want %v", q, got, want)
		}
	}
}
