package analyze

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/store"
)

// TestPlannedPredicate: the plan must be one boolean expression over the
// request columns. Each refused plan names --planned and says why, and none
// of them runs: "false UNION ALL SELECT 99999" used to report 99999 planned.
func TestPlannedPredicate(t *testing.T) {
	path := chaosFile(t, nil)
	db := readOnly(t, path, store.Options{})
	before := fileSum(t, path)
	cases := []struct{ name, pred, reason string }{
		{"union", "false UNION ALL SELECT 99999", "not a set operation (UNION, EXCEPT, INTERSECT)"},
		{"except", "true EXCEPT SELECT false", "not a set operation"},
		{"scalar subquery", "(SELECT count(*) FROM requests) > 0", "with no subquery inside"},
		{"in subquery", "req IN (SELECT req FROM requests)", "with no subquery inside"},
		{"exists", "EXISTS (SELECT 1)", "with no subquery inside"},
		{"read_text inside", "(SELECT count(*) FROM read_text('/etc/passwd')) > 0", "with no subquery inside"},
		{"second statement", "true; DROP TABLE requests", "not several statements"},
		{"copy after", "true; COPY requests TO '" + path + "'", "not several statements"},
		{"two expressions", "true, false", "not 2 expressions"},
		{"from", "true FROM requests", "not a query with FROM"},
		{"where", "true WHERE false", "not a query with WHERE"},
		{"limit", "true LIMIT 0", "not a query with ORDER BY, LIMIT or DISTINCT"},
		{"paren escape", "true) OR (true", "does not parse as one: syntax error"},
		{"parameter", "req = ?", "with no parameter ($1, ?) inside"},
		{"not boolean", "req", "not BIGINT"},
		{"string", "'yes'", "not VARCHAR"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := BlastRadius(db, BlastRadiusOptions{Planned: c.pred})
			var pe *PlannedError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.reason) {
				t.Fatalf("got %v, want a PlannedError with %q", err, c.reason)
			}
			want := `planned predicate "` + c.pred + `" (planned): want one boolean expression over the request columns, `
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("got %q, want it to start %q", err, want)
			}
		})
	}
	db.Close()
	if fileSum(t, path) != before {
		t.Errorf("the database file changed")
	}
}

// TestPlannedScalarReadText: read_text is a table function; as a scalar it
// does not bind, and under the sandbox it could not read anyway.
func TestPlannedScalarReadText(t *testing.T) {
	db := readOnly(t, chaosFile(t, nil), store.Options{})
	_, err := BlastRadius(db, BlastRadiusOptions{Planned: "read_text('/etc/passwd') IS NOT NULL"})
	if err == nil || strings.Contains(err.Error(), "root:") {
		t.Fatalf("got %v, want an error", err)
	}
}

// TestPlannedGood: plans that are one boolean expression count as before.
func TestPlannedGood(t *testing.T) {
	db := readOnly(t, chaosFile(t, nil), store.Options{})
	for pred, want := range map[string]int64{
		"tag_hash(20260731, req) < 0.05":              11,
		"(tag_hash(20260731, req) < 0.05)":            11,
		"tag_hash(20260731, req) < 0.05 AND req >= 0": 11,
		"CASE WHEN req < 0 THEN NULL ELSE false END":  0,
		"req IN (1, 2, 3) AND false":                  0,
	} {
		res, err := BlastRadius(db, BlastRadiusOptions{Planned: pred})
		if err != nil {
			t.Errorf("%s: %v", pred, err)
			continue
		}
		if got := res.Rows[0][0]; got != want {
			t.Errorf("%s: planned %v, want %d", pred, got, want)
		}
	}
}

// TestPlannedPos: a plan that does not name pos is counted over the window's
// rows without numbering them; the count is the one over experiment_window
// (a plan that names pos, always true here, takes that way).
func TestPlannedPos(t *testing.T) {
	db := readOnly(t, chaosFile(t, nil), store.Options{})
	planned := func(pred string) any {
		t.Helper()
		res, err := BlastRadius(db, BlastRadiusOptions{Planned: pred})
		if err != nil {
			t.Fatalf("%s: %v", pred, err)
		}
		return res.Rows[0][0]
	}
	for _, pred := range []string{"tag_hash(20260731, req) < 0.05", "outcome <> 'ok'", "true", "req % 7 = 0"} {
		fast, slow := planned(pred), planned("("+pred+") AND pos >= 0")
		if fast != slow {
			t.Errorf("%s: %v without pos, %v with it", pred, fast, slow)
		}
		if fast == int64(0) {
			t.Errorf("%s: plans none: the test no longer compares", pred)
		}
	}
	if a, b := planned("POS % 2 = 0"), planned("true"); a == b {
		t.Errorf("pos %% 2 = 0 plans %v, as many as true", a)
	}
}

// TestPlannedStored: a bad plan stored with the experiment is refused too,
// and the error names the stored param and the experiment.
func TestPlannedStored(t *testing.T) {
	db := readOnly(t, chaosFile(t, map[string]string{"planned": "false UNION ALL SELECT 99999"}), store.Options{})
	_, err := BlastRadius(db, BlastRadiusOptions{})
	want := `planned predicate "false UNION ALL SELECT 99999" (param planned stored with experiment gunluk; planned overrides it): ` +
		`want one boolean expression over the request columns, not a set operation (UNION, EXCEPT, INTERSECT)`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if _, err := BlastRadius(db, BlastRadiusOptions{Planned: "tag_hash(20260731, req) < 0.05"}); err != nil {
		t.Errorf("--planned over a bad stored plan: %v", err)
	}
}

// A plan ending in a line comment counts as the plan without it: the
// comment used to eat the SQL around the plan ('true --').
func TestPlannedLineComment(t *testing.T) {
	q := ingestedDB(t, "../fixtures/chaos/gunluk.json")
	want, err := BlastRadius(q, BlastRadiusOptions{Planned: "true"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := BlastRadius(q, BlastRadiusOptions{Planned: "true -- all of them"})
	if err != nil {
		t.Fatalf("true --: %v", err)
	}
	if fmt.Sprint(got.Rows) != fmt.Sprint(want.Rows) {
		t.Errorf("true --: %v, want %v", got.Rows, want.Rows)
	}
}
