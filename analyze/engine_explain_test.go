package analyze

import "testing"

// planScans counts a plan's scans and those that read what an earlier one
// read, whatever their expression ids: the old sliding peaks' step read
// the same columns of the same partition for each reference of its CTE.
func TestPlanScans(t *testing.T) {
	scan := func(n, ids, exp, cols string) string {
		return "(" + n + `) Scan parquet 
Output [4]: [t_ms#` + ids + `, count#` + ids + `L, experiment#` + ids + `, run#` + ids + `]
Batched: true
Location: InMemoryFileIndex [file:/tmp/ds10/requests]
PartitionFilters: [isnotnull(experiment#` + ids + `), (experiment#` + ids + ` = ` + exp + `)]
PushedFilters: [IsNotNull(t_ms)]
ReadSchema: struct<` + cols + `>
`
	}
	plan := `== Physical Plan ==
AdaptiveSparkPlan (9)
+- Union (8)
   :- Scan parquet  (1)
   :- Scan parquet  (4)


` + scan("1", "334403", "bench", "t_ms:double,count:bigint") + `
(2) Filter
Input [4]: [t_ms#334403, count#334414L, experiment#334419, run#334420]

` + scan("4", "334429", "bench", "t_ms:double,count:bigint") + "\n" +
		scan("5", "334500", "other", "t_ms:double,count:bigint") + "\n" +
		scan("6", "334600", "bench", "t_ms:double") + "\n" +
		scan("7", "334700", "bench", "t_ms:double,count:bigint")
	for _, c := range []struct {
		plan            string
		scans, repeated int
	}{
		{plan, 5, 2},
		{"== Physical Plan ==\nLocalTableScan (1)\n\n(1) LocalTableScan\nOutput [1]: [one#1]\n", 0, 0},
		{"", 0, 0},
	} {
		if s, r := planScans(c.plan); s != c.scans || r != c.repeated {
			t.Errorf("planScans: %d scans, %d repeated; want %d, %d", s, r, c.scans, c.repeated)
		}
	}
	if got := stripIDs("PartitionFilters: [isnotnull(experiment#334419), (count#12L = 1)]"); got != "PartitionFilters: [isnotnull(experiment), (count = 1)]" {
		t.Errorf("stripIDs: %q", got)
	}
}
