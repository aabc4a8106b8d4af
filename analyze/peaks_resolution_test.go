package analyze

import (
	"strings"
	"testing"
)

// A log whose times are whole seconds (k6's CSV) gets no 100 ms peaks: the
// analysis says why instead of printing a ratio that only shows rounding.
func TestPeaksFinerThanTheData(t *testing.T) {
	var b strings.Builder
	for s, n := range []int{3, 5, 2} {
		for i := 0; i < n; i++ {
			b.WriteString(`{"run":"a","outcome":"ok","ts":"2026-05-01T10:00:0` + string(rune('0'+s)) + `Z"}` + "\n")
		}
	}
	db := logsDB(t, b.String())
	r, err := Peaks(db, PeaksOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 1 || r.Rows[0][r.Col("resolution_ms")] != int64(1000) || r.Rows[0][r.Col("peak")] != int64(5) {
		t.Errorf("rows %v, want one row at 1000 ms with peak 5", r.Rows)
	}
	want := "peaks at 100ms left out: the log's times are multiples of 1s, so a finer bucket only shows rounding"
	if notes := r.SayNotes(asFlag); len(notes) != 1 || notes[0] != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
	if _, err := Peaks(db, PeaksOptions{ResolutionsMs: []int64{100}}); err == nil || !strings.Contains(err.Error(), "no peak at 100ms") {
		t.Errorf("only finer resolutions: %v", err)
	}
}
