package analyze

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/rewind-dev/rewind/hypothesis"
)

// Falsification's judging on the cluster falls back to pulling the windows
// when a product could pass the bound, with the same answer as locally:
// the bound lowered to k = w · l · 10^6 (a baseline's literal reaches it:
// nothing is judged on the cluster) and to k + 1 (every literal passes,
// a window's num · k does not: step 2 counts it unjudged); then judged
// at the real bound on the same database (the TEMP _sweep of one call
// never reads another's). --by falls back likewise. Over the edge log
// (count > 1: windows of several sizes, so l is a true lcm; NULL outcomes,
// a last short window per run).
func TestSweepFallbackOnSpark(t *testing.T) {
	sparkURL(t)
	db := logsDB(t, edgeLog(700))
	r := onSpark(t, sparkDataset(t, db))
	o := FalsificationOptions{Experiment: "edge", Window: hypothesis.Window{N: 7}}
	var w, l string
	if err := db.QueryRow(`SELECT any_value(w)::VARCHAR, any_value(l)::VARCHAR FROM _judged_windows('edge', 7, NULL, 'ok_share', NULL, NULL, NULL, NULL, NULL, NULL, NULL)`).Scan(&w, &l); err != nil {
		t.Fatal(err)
	}
	k := new(big.Int).Mul(new(big.Int).Mul(bigOf(w), bigOf(l)), big.NewInt(1000000))
	real := judgeLimit
	t.Cleanup(func() { judgeLimit = real })
	for _, c := range []struct {
		limit *big.Int
		o     FalsificationOptions
		want  string
	}{
		{k, o, "pulled: a baseline or threshold past the bound"},
		{new(big.Int).Add(k, big.NewInt(1)), o, "pulled: a window past the bound"},
		{real, o, "judged"},
		{big.NewInt(10), FalsificationOptions{Experiment: "edge", Window: hypothesis.Window{Ms: 100}, By: []string{"outcome"}}, "pulled: a baseline or threshold past the bound"},
	} {
		judgeLimit = c.limit
		compareResults(t, fmt.Sprintf("falsification %+v, bound %s", c.o, c.limit), func() (*Result, error) { return Falsification(db, c.o) },
			func() (*Result, error) { return FalsificationOn(r, c.o) })
		if r.swept != c.want {
			t.Errorf("falsification %+v, bound %s: the sweep was %q, want %q", c.o, c.limit, r.swept, c.want)
		}
	}
}
