package analyze

import "testing"

// A {by} past the group bound is refused before the query runs, naming
// the fields and the count (the bound lowered here to 1 group).
func TestStopDamageGroupBound(t *testing.T) {
	q := ingestedDB(t, "../fixtures/chaos/gunluk.json")
	defer func(n int64) { maxStopDamageGroups = n }(maxStopDamageGroups)
	maxStopDamageGroups = 1
	_, err := StopDamage(q, StopDamageOptions{By: []string{"outcome"}})
	want := "by outcome: 2 groups over 800 rows, more than the 1 stop-damage takes (a key with about one value per row, like seq, makes a group per row)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	maxStopDamageGroups = 2
	if _, err := StopDamage(q, StopDamageOptions{By: []string{"outcome"}}); err != nil {
		t.Errorf("2 groups, bound 2: %v", err)
	}
}

// blast-radius's {start} is a request position: -1 is refused, not read.
func TestBlastRadiusNegativeStart(t *testing.T) {
	q := ingestedDB(t, "../fixtures/chaos/gunluk.json")
	_, err := BlastRadius(q, BlastRadiusOptions{Start: -1, StartSet: true})
	if err == nil || err.Error() != "start -1: want a request position of 0 or more" {
		t.Errorf("start -1: %v", err)
	}
}
