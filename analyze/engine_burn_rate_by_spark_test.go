package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// Burn rates --by on Spark equal the local ones over the edge and burn
// logs and the attrs log: groups of columns (a NULL outcome among them),
// status_class and attrs keys, with several rules, a step and partial
// windows; each group's bound (_br_plan) and the candidate buckets' end
// moments equal their DuckDB twins' (EXCEPT ALL both ways).
func TestBurnRateByOnSpark(t *testing.T) {
	sparkURL(t)
	t.Parallel() // a step waits mostly on the cluster's scheduling: two tests overlap it
	db := logsDB(t, edgeLog(400), burnLog(), attrsLog(300))
	r := onSpark(t, sparkDataset(t, db))
	fired, k := 0, 0
	for _, c := range []struct {
		exp string
		by  [][]string
	}{
		{"edge", [][]string{{"outcome"}, {"tagged", "status_class"}}},
		{"burn", [][]string{{"outcome"}, {"status_class"}}},
		{"attrs", [][]string{{"k"}, {"o", "outcome"}, {"a.b"}}},
	} {
		for _, by := range c.by {
			// several rules, a step, partial windows: two of the four cases a
			// grouping, in turn, so each case meets most groupings (CI time)
			cases := burnCases(c.exp, true)[1:5]
			k += 2
			for _, o := range []BurnRateOptions{cases[k%4], cases[(k+1)%4]} {
				o.By = by
				compareResults(t, fmt.Sprintf("burn-rate %+v", o), func() (*Result, error) { return BurnRate(db, o) },
					func() (*Result, error) { return BurnRateOn(r, o) })
				res, err := BurnRate(db, o)
				if err != nil {
					continue
				}
				sameBurnStepsBy(t, db, r, o)
				for _, row := range res.Rows {
					if row[res.Col("fired_at_ms")] != nil {
						fired++
					}
				}
			}
		}
	}
	if fired < 10 {
		t.Errorf("%d rules fired: the cases do not reach the candidates", fired)
	}
}

// sameBurnStepsBy compares the grouped steps of o's run on r with their
// twins over the local database: the bound per group, and the end moments
// per group of the buckets some group's candidates need.
func sameBurnStepsBy(t *testing.T, db *store.DB, r *Remote, o BurnRateOptions) {
	t.Helper()
	rules := o.Rules
	if len(rules) == 0 {
		rules = hypothesis.DefaultBurnRules
	}
	g, err := groupBy(db, o.Experiment, o.By)
	if err != nil {
		t.Fatal(err)
	}
	q := hypothesis.BurnQuery{SLO: o.SLO, Rules: rules, Period: o.Period, Step: o.Step, Partial: o.Partial}
	exp := sqllit.String(o.Experiment)
	var size int64
	if err := db.QueryRow(q.BucketSizeSQL()).Scan(&size); err != nil {
		t.Fatal(err)
	}
	what := fmt.Sprintf("%+v: ", o)
	q.Group = g.key
	samePlan(t, what, db, q, r, exp)
	cands := strings.Replace(q.CandidateBucketsSQL(), "?, true", exp+", "+g.key, 1)
	sameStep(t, what+"end moments", db, fmt.Sprintf(`SELECT p.run, p.gk, p.end_ns, sum(p.n)::HUGEINT, sum(p.bad)::HUGEINT, min(p.t_ms)
FROM _br_points(%s, (outcome = 'ok'), %s) p SEMI JOIN (%s) c ON p.run = c.run AND _br_floor(p.end_ns, %d) = c.k
GROUP BY p.run, p.gk, p.end_ns`, exp, g.key, cands, size),
		r.Querier(), fmt.Sprintf(`SELECT run, gk, end_ns, n, bad, t_ms FROM _br_points(%s, (outcome = 'ok'), true)`, exp))
}
