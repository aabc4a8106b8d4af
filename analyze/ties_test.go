package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeWindows writes a canonical log: per role, windows of n requests
// with the given ok counts; the first request of each failed run is tagged.
func writeWindows(t *testing.T, n int, control, experiment []int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(fmt.Sprintf(`{"record":"experiment","params":{"window":%d}}`+"\n", n))
	for _, r := range []struct {
		run string
		oks []int
	}{{"control", control}, {"experiment", experiment}} {
		req := 0
		for _, ok := range r.oks {
			for i := 0; i < n; i++ {
				outcome := "ok"
				if i >= ok {
					outcome = "error"
				}
				fmt.Fprintf(&b, `{"run":%q,"req":%d,"outcome":%q,"tagged":%t}`+"\n", r.run, req, outcome, r.run == "experiment")
				req++
			}
		}
	}
	path := filepath.Join(t.TempDir(), "ties.ndjson")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A window exactly at baseline - margin does not falsify. In float64,
// 0.7 < 0.8 - 0.1 holds (0.8 - 0.1 is 0.7000000000000001), so a float
// comparison would call the tie a falsification.
func TestTiesDoNotFalsify(t *testing.T) {
	// control shares 0.7 and 0.9: baseline exactly 0.8
	q := ingestedDB(t, writeWindows(t, 10, []int{7, 9}, []int{7, 6, 7, 10}))
	fa, err := Falsification(q, FalsificationOptions{Margins: []float64{0.1, 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "falsification", fa, [][]any{
		{0.1, 0.8, int64(0), int64(2), int64(1), int64(4), int64(2)},
		{0.2, 0.8, int64(0), int64(2), int64(0), int64(4), nil},
	})
	sd, err := StopDamage(q, StopDamageOptions{Margin: 0.1, MarginSet: true, Ks: []int64{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	// damage: 3 + 4 + 3 + 0 tagged errors; k=1 stops at window 2 (7 damaged so far)
	check(t, "stop-damage", sd, [][]any{
		{int64(1), int64(2), int64(7), int64(0), int64(10)},
		{int64(2), nil, int64(10), int64(3), int64(10)},
	})
}
