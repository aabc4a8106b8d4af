package analyze

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
)

type burnEvent struct {
	endMs int64
	bad   bool
}

// burnTwin finds, by brute force over every ms of a run whose times are
// whole ms (so every change of a window's content falls on one), the first moment both windows (T - w, T] burn strictly faster
// than the factor, in exact rationals.
func burnTwin(evs []burnEvent, startMs int64, slo *big.Rat, r hypothesis.BurnRule, partial bool, stepMs int64) []any {
	dur := int64(0)
	total, badTotal := int64(0), int64(0)
	for _, e := range evs {
		dur = max(dur, e.endMs-startMs)
		total++
		if e.bad {
			badTotal++
		}
	}
	budget := new(big.Rat).Sub(big.NewRat(1, 1), slo)
	f, _ := new(big.Rat).SetString(string(r.Factor))
	thr := new(big.Rat).Mul(f, budget)
	short, long := r.Short.Milliseconds(), r.Long.Milliseconds()
	count := func(from, to int64) (int64, int64) { // (from, to]
		n, bad := int64(0), int64(0)
		for _, e := range evs {
			if t := e.endMs - startMs; t > from && t <= to {
				n++
				if e.bad {
					bad++
				}
			}
		}
		return n, bad
	}
	burns := func(n, bad int64) bool {
		return new(big.Rat).SetInt64(bad).Cmp(new(big.Rat).Mul(thr, big.NewRat(n, 1))) > 0
	}
	first, step := int64(0), int64(1) // every ms from the start, or every step after it
	if stepMs > 0 {
		first, step = stepMs, stepMs
	}
	for t := first; t <= dur; t += step {
		if !partial && t < long {
			continue
		}
		ns, bs := count(t-short, t)
		nl, bl := count(t-long, t)
		if burns(ns, bs) && burns(nl, bl) {
			nt, bt := count(-1, t)
			units := new(big.Rat).Mul(budget, big.NewRat(1e9, 1))
			u := units.Num().Int64() / units.Denom().Int64()
			return []any{"a", r.Name, float64(t), float64(bs*1e9) / float64(ns*u), float64(bl*1e9) / float64(nl*u),
				nt, bt, "budget", badTotal, nil}
		}
	}
	note := "did not fire"
	if !partial && long > dur {
		note = "long window longer than the run"
	}
	return []any{"a", r.Name, nil, nil, nil, nil, nil, "budget", badTotal, note}
}

// burn_rate and the brute-force twin agree on generated logs: when each
// rule first fires (arrivals, departures and ties), what had ended and
// failed by then, with and without partial windows and a step.
func TestBurnRateTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(20260801, 4))
	slos := []string{"0.9", "0.99", "0.75", "0.8"}
	for i := 0; i < 30; i++ {
		var b strings.Builder
		b.WriteString(`{"record":"experiment","experiment":"twin"}` + "\n")
		var evs []burnEvent
		start := int64(-1)
		for j, n := 0, 10+r.IntN(50); j < n; j++ {
			send, lat := int64(r.IntN(6000)), int64(r.IntN(400))
			bad := r.IntN(3) == 0
			fmt.Fprintf(&b, `{"experiment":"twin","run":"a","t_ms":%d,"latency_ms":%d,"outcome":%q}`+"\n", send, lat,
				map[bool]string{false: "ok", true: "error"}[bad])
			evs = append(evs, burnEvent{send + lat, bad})
			if start < 0 || send < start {
				start = send
			}
		}
		slo := slos[r.IntN(len(slos))]
		var rules []hypothesis.BurnRule
		for k := 0; k < 3; k++ {
			s := int64(100 * (1 + r.IntN(10)))
			l := s * int64(2+r.IntN(6))
			rule, err := parseBurnRule(fmt.Sprintf("%dms/%dms>%s", s, l, []string{"1", "2", "1.5", "3", "4"}[r.IntN(5)]))
			if err != nil {
				t.Fatal(err)
			}
			rules = append(rules, rule)
		}
		partial := r.IntN(2) == 0
		step := []int64{0, 0, 250, 1000}[r.IntN(4)]
		o := BurnRateOptions{SLO: hypothesis.Decimal(slo), Rules: rules, Partial: partial, Step: time.Duration(step) * time.Millisecond}
		res, err := BurnRate(logsDB(t, b.String()), o)
		if err != nil {
			t.Fatal(err)
		}
		sloRat, _ := new(big.Rat).SetString(slo)
		for k, rule := range rules {
			want := burnTwin(evs, start, sloRat, rule, partial, step)
			got := append([]any{}, res.Rows[k]...)
			got[7] = "budget" // budget_consumed: see the cases
			if fmt.Sprint(want) != fmt.Sprint(got) {
				t.Errorf("log %d, slo %s, rule %s, partial %t, step %d:\n twin %v\n  sql %v\n%s", i, slo, rule.Name, partial, step, want, got, b.String())
			}
		}
	}
}

// parseBurnRule reads one rule "SHORT/LONG>FACTOR".
func parseBurnRule(s string) (hypothesis.BurnRule, error) {
	r, err := hypothesis.ParseBurnRules(s)
	if err != nil {
		return hypothesis.BurnRule{}, err
	}
	return r[0], nil
}
