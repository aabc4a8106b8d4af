package analyze

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// compareStopDamage compares stop-damage on Spark with the local one:
// judged on the cluster (checked: where both ran, its streaks were judged
// there), then, with pulled, again with the windows pulled (o.Windows),
// which leaves them for the caller's checks of the windows step. It says
// whether both ran.
func compareStopDamage(t *testing.T, local store.Querier, r *Remote, o StopDamageOptions, pulled bool) bool {
	t.Helper()
	what := fmt.Sprintf("stop-damage %+v", o)
	ran := bothRan(t, what, func() (*Result, error) { return StopDamage(local, o) }, func() (*Result, error) { return StopDamageOn(r, o) })
	if ran && r.streaked != "judged" {
		t.Errorf("%s: the streaks were %q, not judged on the cluster", what, r.streaked)
	}
	if !pulled {
		return ran
	}
	p := o
	p.Windows = true
	return bothRan(t, what+" (windows pulled)", func() (*Result, error) { return StopDamage(local, p) }, func() (*Result, error) { return StopDamageOn(r, p) })
}

// streakLog is two experiments whose experiment windows of 4 requests
// come in designed runs: falsified runs of 1 to 12 windows, apart by one
// or two windows not falsified and (streaklat, p95) windows without a
// latency, which neither break nor extend a streak; tagged requests not
// ok are the damage. The control runs are all ok (streak) or 10 ms
// (streaklat).
func streakLog() string {
	var b strings.Builder
	kinds := ""
	for i, x := 0, uint32(7); len(kinds) < 400; i++ {
		x = x*1664525 + 1013904223
		kinds += strings.Repeat("F", 1+int(x>>16)%12)
		kinds += []string{"O", "N", "NO", "ON", "NN"}[int(x>>8)%5]
	}
	for _, exp := range []string{"streak", "streaklat"} {
		for i := range 4 * len(kinds) {
			fmt.Fprintf(&b, `{"experiment":"%s","run":"control","req":%d,"t_ms":%d,"latency_ms":10,"outcome":"ok","tagged":false}`+"\n", exp, i, i*10)
		}
		for i := range 4 * len(kinds) {
			k, outcome, lat := kinds[i/4], "ok", "10"
			switch {
			case k == 'F' && exp == "streak" && i%4 < 2:
				outcome = "error"
			case k == 'F' && exp == "streaklat":
				lat = "100"
				if i%4 == 0 {
					outcome = "error"
				}
			case k == 'N' && exp == "streaklat":
				lat = "null"
			}
			fmt.Fprintf(&b, `{"experiment":"%s","run":"experiment","req":%d,"t_ms":%d,"latency_ms":%s,"outcome":"%s","tagged":%v}`+"\n",
				exp, i, i*10, lat, outcome, i%3 != 1)
		}
	}
	return b.String()
}

// Stop-damage's streaks judged on the cluster equal the local ones when
// streaks cross blocks of window numbers: blocks of 1 and 3 windows
// (every window its own block, then runs across several; the real 65,536
// are every other test's), runs of up to
// 12 falsified windows, ks up to 13, windows without a value inside runs,
// --by. Then its fallbacks, pulled with the same answer: a k past 64, and
// a bound that a baseline's literal reaches.
func TestStreaksOnSpark(t *testing.T) {
	sparkURL(t)
	db := logsDB(t, streakLog())
	r := onSpark(t, sparkDataset(t, db))
	real, realLimit := streakBlock, judgeLimit
	t.Cleanup(func() { streakBlock, judgeLimit = real, realLimit })
	ks := []int64{2, 1, 3, 4, 5, 8, 12, 13}
	cases := []StopDamageOptions{
		{Experiment: "streak", Window: hypothesis.Window{N: 4}, Ks: ks},
		{Experiment: "streaklat", Window: hypothesis.Window{N: 4}, Ks: ks, Hypothesis: hypothesis.Hypothesis{Metric: "p95"}},
		{Experiment: "streak", Window: hypothesis.Window{Ms: 40}, Ks: ks, By: []string{"tagged"}},
	}
	for _, b := range []int64{1, 3} {
		streakBlock = b
		for _, o := range cases {
			// pulled once: the pulled windows do not depend on the blocks
			if !compareStopDamage(t, db, r, o, b == 1) {
				t.Errorf("stop-damage %+v, blocks of %d: did not run on both engines", o, b)
			}
		}
	}
	streakBlock = real
	for _, c := range []struct {
		o     StopDamageOptions
		limit *big.Int
		want  string
	}{
		{StopDamageOptions{Experiment: "streak", Window: hypothesis.Window{N: 4}, Ks: []int64{3, 65}}, realLimit, "pulled: k 65 past 64"},
		{StopDamageOptions{Experiment: "streak", Window: hypothesis.Window{N: 4}}, big.NewInt(10), "pulled: a baseline or threshold past the bound"},
	} {
		judgeLimit = c.limit
		compareResults(t, fmt.Sprintf("stop-damage %+v", c.o), func() (*Result, error) { return StopDamage(db, c.o) },
			func() (*Result, error) { return StopDamageOn(r, c.o) })
		if r.streaked != c.want {
			t.Errorf("stop-damage %+v: the streaks were %q, want %q", c.o, r.streaked, c.want)
		}
	}
}
