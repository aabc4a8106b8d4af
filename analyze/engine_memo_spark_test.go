package analyze

import (
	"testing"

	"github.com/rewind-dev/rewind/engine"
)

// A session runs a query once: an analysis run a second time on the same
// Remote sends no step to the cluster and prints the same; another
// analysis still runs its own steps; and Close releases what was kept.
func TestRemoteMemoOnSpark(t *testing.T) {
	sparkURL(t)
	t.Parallel()
	db := ingestedDB(t, "../fixtures/chaos/gunluk.json")
	r := onSpark(t, sparkDataset(t, db))
	steps := func() int { return r.eng.(interface{ Stats() engine.Stats }).Stats().Steps }
	o := FalsificationOptions{Experiment: "gunluk"}
	first, err := FalsificationOn(r, o)
	if err != nil {
		t.Fatal(err)
	}
	sent := steps()
	again, err := FalsificationOn(r, o)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := asJSON(t, first), asJSON(t, again); a != b {
		t.Errorf("the second run printed otherwise:\n%s\n%s", a, b)
	}
	if n := steps(); n != sent {
		t.Errorf("the second run sent %d steps, want 0", n-sent)
	}
	if len(r.memo) == 0 || r.memoBytes <= 0 {
		t.Errorf("nothing kept: %d results, %d bytes", len(r.memo), r.memoBytes)
	}
	if _, err := BlastRadiusOn(r, BlastRadiusOptions{Experiment: "gunluk"}); err != nil {
		t.Fatal(err)
	}
	if n := steps(); n == sent {
		t.Error("blast-radius sent no step of its own")
	}
	want, err := Falsification(db, o)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := asJSON(t, want), asJSON(t, again); a != b {
		t.Errorf("local\n%s\nSpark, memoized\n%s", a, b)
	}
}
