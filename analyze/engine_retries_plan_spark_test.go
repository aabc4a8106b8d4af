package analyze

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/hypothesis"
)

// Retries' step joins the bases (a row per run) to the requests by a
// broadcast, not a shuffle on run: a shuffle on run left the rows
// partitioned by run for the operations' GROUP BY, which that partitioning
// satisfies, so one task per run grouped every request (248 s of 373 in one
// task at 100 M rows, bench/README.md "One worker against two: where the
// cores go"). Spark's planned joins of the step, with and without --by, are
// all broadcasts or keyed by more than the run.
func TestRetrySumsJoinsSpread(t *testing.T) {
	sparkURL(t)
	t.Parallel()
	local := ingestedDB(t, "../fixtures/retry/tiny.ndjson")
	r := onSpark(t, sparkDataset(t, local))
	// the fixture is small enough for Spark to broadcast any side; at 100 M
	// rows the bases' estimate is not. Only a hint broadcasts here.
	if tab, err := r.eng.Reduce(r.ctx, "SET spark.sql.autoBroadcastJoinThreshold=-1"); err != nil {
		t.Fatal(err)
	} else if tab != nil {
		tab.Release()
	}
	node := regexp.MustCompile(`(?m)^\(\d+\) (\w*Join)[^\n]*\nLeft keys \[(\d+)\]`)
	for _, by := range [][]string{nil, {"outcome"}} {
		eg, err := r.groupOn("retries", local, "tiny", by)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := r.eng.Reduce(r.ctx, "EXPLAIN FORMATTED "+retrySumsStep("tiny", eg, hypothesis.Span{FromMs: 0, ToMs: 1e9}))
		if err != nil {
			t.Fatal(err)
		}
		plan := planText(tab)
		tab.Release()
		joins := node.FindAllStringSubmatch(plan, -1)
		if len(joins) == 0 {
			t.Fatalf("by %v: no join in the plan:\n%s", by, plan)
		}
		for _, j := range joins {
			if keys := 1 + len(by); !strings.HasPrefix(j[1], "Broadcast") && j[2] == strconv.Itoa(keys) {
				t.Errorf("by %v: a %s keyed by the run and group alone: a shuffle on them, one task per run\n%s", by, j[1], plan)
			}
		}
	}
}
