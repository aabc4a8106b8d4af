package analyze

import (
	"context"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
)

// Duration windows finer than an access log's whole-second times are
// flagged; windows at the resolution or coarser, and count windows, are not.
func TestWindowShorterThanResolution(t *testing.T) {
	db := ingestedDB(t)
	logs := "../ingest/testdata/real/clf/"
	if _, err := ingest.Files(context.Background(), db, ingest.Options{Experiment: "front",
		Roles: map[string]string{"input": "experiment"}}, []string{logs + "nginx-timed-upstream-list/input.log"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		window string
		note   bool
	}{{"500ms", true}, {"999ms", true}, {"1s", false}, {"2s", false}, {"10", false}} {
		w, err := hypothesis.ParseWindow(c.window)
		if err != nil {
			t.Fatal(err)
		}
		res, err := StopDamage(db, StopDamageOptions{Experiment: "front", Window: w,
			Hypothesis: hypothesis.Hypothesis{Treatment: "input", BaselineUntil: "3s"}})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(strings.Join(res.SayNotes(asFlag), "\n"), "shorter than the log's time resolution (1s)")
		if got != c.note {
			t.Errorf("window %s: note %v, want %v (notes %q)", c.window, got, c.note, res.Notes)
		}
	}
}
