package analyze

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPeaksSekil1 recomputes the seed's Şekil 2 peak columns (Tepe 100 ms and
// Tepe 1 sn) from its own Şekil 1 series, a pre-binned run,t_ms,count CSV.
func TestPeaksSekil1(t *testing.T) {
	db := ingestedDB(t, "../fixtures/peaks/sekil1.csv")
	res, err := Peaks(db, PeaksOptions{Sliding: true})
	if err != nil {
		t.Fatal(err)
	}
	// run, resolution_ms, peak, peak_at_ms, total, sliding_peak, sliding_at_ms
	want := [][]any{
		{"A", int64(100), int64(232), int64(10000), int64(626), int64(232), 10000.0},
		{"A", int64(1000), int64(275), int64(10000), int64(626), int64(315), 9100.0},
		{"B", int64(100), int64(143), int64(10200), int64(538), int64(143), 10200.0},
		{"B", int64(1000), int64(229), int64(10000), int64(538), int64(246), 9700.0},
		{"C", int64(100), int64(76), int64(10000), int64(541), int64(76), 10000.0},
		{"C", int64(1000), int64(225), int64(10000), int64(541), int64(242), 9600.0},
	}
	if diff := cmp.Diff(want, res.Rows); diff != "" {
		t.Errorf("peaks (-want +got):\n%s", diff)
	}

	cmpRes, err := ComparePeaks(res)
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []Column{{Name: "run"}, {Name: "peak_100ms", Unit: "requests"},
		{Name: "peak_1s", Unit: "requests"}, {Name: "ratio_1s", Unit: "x"}}
	wantRows := [][]any{
		{"A", int64(232), int64(275), 2320.0 / 275},
		{"B", int64(143), int64(229), 1430.0 / 229},
		{"C", int64(76), int64(225), 760.0 / 225},
	}
	if diff := cmp.Diff(wantCols, cmpRes.Columns); diff != "" {
		t.Errorf("comparison columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantRows, cmpRes.Rows); diff != "" {
		t.Errorf("comparison (-want +got):\n%s", diff)
	}
}

// TestPeaksWithoutSliding checks that the sliding columns are left out, and
// that resolutions come back sorted and deduplicated.
func TestPeaksWithoutSliding(t *testing.T) {
	db := ingestedDB(t, "../fixtures/peaks/sekil1.csv")
	res, err := Peaks(db, PeaksOptions{ResolutionsMs: []int64{500, 200, 500}})
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range res.Columns {
		cols = append(cols, c.Name)
	}
	if diff := cmp.Diff([]string{"run", "resolution_ms", "peak", "peak_at_ms", "total"}, cols); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	// A: 10.0-10.1 s holds 232 + 4 = 236 in 200 ms; 10.0-10.4 s 232+4+5+6+7 = 254 in 500 ms.
	want := [][]any{
		{"A", int64(200), int64(236), int64(10000), int64(626)},
		{"A", int64(500), int64(254), int64(10000), int64(626)},
	}
	if diff := cmp.Diff(want, res.Rows[:2]); diff != "" {
		t.Errorf("peaks of A (-want +got):\n%s", diff)
	}
	if _, err := Peaks(db, PeaksOptions{ResolutionsMs: []int64{100, 0}}); err == nil {
		t.Error("resolution 0: no error")
	}
}
