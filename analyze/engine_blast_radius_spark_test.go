package analyze

import (
	"testing"
)

// Blast radius on Spark equals the local one at every kind of start: 0, the
// stored one, inside a run, on the edge between the two experiment-role
// runs, the last row, past the end, negative; and each reduce step equals
// its DuckDB twin.
func TestBlastRadiusOnSpark(t *testing.T) {
	sparkURL(t)
	const n = 40
	local := logsDB(t, edgeLog(n))
	r := onSpark(t, sparkDataset(t, local))
	for _, start := range []int64{0, 1, 39, 40, 41, 2*n - 1, 2 * n, 1000, -5} {
		o := BlastRadiusOptions{Experiment: "edge", Start: start, StartSet: true}
		want, err := BlastRadius(local, o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := BlastRadiusOn(r, o)
		if err != nil {
			t.Fatalf("start %d: %v", start, err)
		}
		if a, b := asJSON(t, want), asJSON(t, got); a != b {
			t.Errorf("start %d: local\n%s\nSpark\n%s", start, a, b)
		}
	}
	sameStep(t, "_blast_blocks", local, `SELECT run, seq // 65536, count(*) FROM requests WHERE experiment = 'edge' AND role = 'experiment' GROUP BY ALL`,
		r.Querier(), `SELECT * FROM _blast_blocks`)
	// The stored start (3).
	want, err := BlastRadius(local, BlastRadiusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := BlastRadiusOn(r, BlastRadiusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := asJSON(t, want), asJSON(t, got); a != b {
		t.Errorf("stored start: local\n%s\nSpark\n%s", a, b)
	}
	// A plan is DuckDB SQL: refused, not answered.
	if _, err := BlastRadiusOn(r, BlastRadiusOptions{Planned: "tagged"}); err == nil {
		t.Error("a plan on Spark: want a refusal")
	}
}
