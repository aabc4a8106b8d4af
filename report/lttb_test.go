package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLTTBHandComputed checks LTTB against a case worked on paper. Seven
// points to four: every = (7-2)/(4-2) = 2.5, so the buckets between the
// ends are points 1-2 and points 3-5.
//
//	bucket 1, from a = (0,0), next bucket's mean (4, -1/3):
//	  area(1,1) = |(0-4)(1-0) - (0-1)(-1/3-0)| = 13/3; area(2,5) = 62/3 → keep (2,5)
//	bucket 2, from a = (2,5), next bucket's mean (6,0):
//	  area(3,2) = 7, area(4,0) = 10, area(5,-3) = 17 → keep (5,-3)
func TestLTTBHandComputed(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5, 6}
	y := []float64{0, 1, 5, 2, 0, -3, 0}
	gotX, gotY := LTTB(x, y, 4)
	if diff := cmp.Diff([]float64{0, 2, 5, 6}, gotX); diff != "" {
		t.Errorf("x (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0, 5, -3, 0}, gotY); diff != "" {
		t.Errorf("y (-want +got):\n%s", diff)
	}
}

func TestLTTBKeepsShortSeries(t *testing.T) {
	x, y := []float64{0, 1, 2}, []float64{3, 4, 5}
	for _, n := range []int{0, 2, 3, 10} {
		gx, gy := LTTB(x, y, n)
		if len(gx) != 3 || len(gy) != 3 {
			t.Errorf("n = %d: got %d points, want the 3 given", n, len(gx))
		}
	}
}

// TestLTTBKeepsTheSpike: one spike among 10,000 flat points survives a
// downsampling to 100, and the ends are kept.
func TestLTTBKeepsTheSpike(t *testing.T) {
	x, y := make([]float64, 10000), make([]float64, 10000)
	for i := range x {
		x[i] = float64(i)
	}
	y[6543] = 900
	gx, gy := LTTB(x, y, 100)
	if len(gx) != 100 || gx[0] != 0 || gx[99] != 9999 {
		t.Fatalf("got %d points from %v to %v, want 100 from 0 to 9999", len(gx), gx[0], gx[len(gx)-1])
	}
	found := false
	for i := range gx {
		found = found || gx[i] == 6543 && gy[i] == 900
	}
	if !found {
		t.Error("the spike at x = 6543 was dropped")
	}
}
