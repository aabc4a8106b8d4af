package analyze

import (
	"fmt"
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
	for _, start := range []int64{0, 1, 39, 40, 41, 2*n - 1, 2 * n, 1000} {
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
		sameStep(t, "_blast_hit", local, fmt.Sprintf(`
SELECT run, b, before
FROM (SELECT run, b, n, sum(n) OVER (ORDER BY run, b ROWS UNBOUNDED PRECEDING) - n AS before
      FROM (SELECT run, seq // 65536 AS b, count(*) AS n FROM requests WHERE experiment = 'edge' AND role = 'experiment' GROUP BY ALL))
WHERE before <= %d AND %d < before + n`, max(start, 0), max(start, 0)), r.Querier(), `SELECT * FROM _blast_hit`)
		sameStep(t, "_blast_sums", local, fmt.Sprintf(`
SELECT measured, window_requests, damaged, control_damaged, control_requests FROM blast_radius('edge', %d, NULL)`, start),
			r.Querier(), `SELECT measured, window_requests, damaged, control_damaged, control_requests FROM _blast_sums`)
	}
	// A negative start is refused the same way on both.
	o := BlastRadiusOptions{Experiment: "edge", Start: -5, StartSet: true}
	_, errLocal := BlastRadius(local, o)
	_, errSpark := BlastRadiusOn(r, o)
	if errLocal == nil || errSpark == nil || errLocal.Error() != errSpark.Error() {
		t.Errorf("start -5: local %v, Spark %v", errLocal, errSpark)
	}
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
	// Seeded plans are counted on Spark; any other plan is DuckDB SQL:
	// refused, not answered.
	for _, plan := range []string{"tag_hash(20260731, req) < 0.05", " tag_hash( 7 , req ) <= 0.5", "tag_hash(-3, req) < 1"} {
		for _, start := range []int64{0, 41, 1000} {
			o := BlastRadiusOptions{Experiment: "edge", Planned: plan, Start: start, StartSet: true}
			want, err := BlastRadius(local, o)
			if err != nil {
				t.Fatal(err)
			}
			got, err := BlastRadiusOn(r, o)
			if err != nil {
				t.Fatalf("%s: %v", plan, err)
			}
			if a, b := asJSON(t, want), asJSON(t, got); a != b {
				t.Errorf("plan %s, start %d: local\n%s\nSpark\n%s", plan, start, a, b)
			}
		}
	}
	for _, plan := range []string{"tagged", "tag_hash(1, req) < 0.5 OR true", "tag_hash(1, user_id) < 0.5"} {
		if _, err := BlastRadiusOn(r, BlastRadiusOptions{Planned: plan}); err == nil {
			t.Errorf("plan %s on Spark: want a refusal", plan)
		}
	}
}

// tag_hash on Spark (sparkPlan's columns) equals DuckDB's bit for bit, over
// reqs at the edges of 32 and 64 bits, negative ones, and NULL (not
// 2^63 - 1: DuckDB's tag_hash overflows on req + 1 there).
func TestTagHashOnSpark(t *testing.T) {
	sparkURL(t)
	local := ingestedDB(t)
	for _, q := range []string{
		`INSERT INTO experiments VALUES ('th', NULL)`,
		`INSERT INTO runs VALUES ('th', 'experiment', 'experiment', NULL)`,
		`INSERT INTO requests (experiment, run, role, seq, req, attempt, outcome, tagged, count, file_id, line)
		 SELECT 'th', 'experiment', 'experiment', i, v, 0, 'ok', false, 1, 1, i
		 FROM (SELECT row_number() OVER () AS i, v FROM (
		     SELECT unnest([0, 1, -1, -2, 4294967295, 4294967296, 4294967297, 2147483647, -2147483648,
		                    -9223372036854775808, 9223372036854775806, NULL]::BIGINT[]) AS v
		     UNION ALL SELECT (hash(i) >> 1)::BIGINT * CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END FROM range(5000) t(i)))`,
	} {
		if _, err := local.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	r := onSpark(t, sparkDataset(t, local))
	for _, seed := range []int64{20260731, 0, -1, 4294967295} {
		cols, _, ok := sparkPlan(fmt.Sprintf("tag_hash(%d, req) < 0.5", seed))
		if !ok {
			t.Fatal("seeded plan not translated")
		}
		if err := r.reduce("_th", "req BIGINT, th DOUBLE", "SELECT req, th FROM (SELECT req, "+cols+" FROM requests WHERE experiment = 'th')"); err != nil {
			t.Fatal(err)
		}
		sameStep(t, fmt.Sprintf("tag_hash seed %d", seed), local, fmt.Sprintf("SELECT req, tag_hash(%d, req) FROM requests WHERE experiment = 'th'", seed),
			r.Querier(), "SELECT * FROM _th")
	}
}
