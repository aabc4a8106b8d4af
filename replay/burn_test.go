package replay

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// TestBurnAlertAgreesWithSQL is the property test of watch's burn-rate
// stop: on generated logs (send order with equal sends, latencies from 0,
// sub-millisecond times, errors in bursts, rows standing for several
// requests, rows without an outcome), the Go twin fed line by line fires
// first at the same moment, for the same rule, with the same requests and
// failures before it, as the burn_rate macro over the ingested log; with
// continuous evaluation and with steps, with and without partial windows.
func TestBurnAlertAgreesWithSQL(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261201, 13))
	type burnLog struct {
		genLog
		cfg BurnConfig
	}
	logs := make([]burnLog, 120)
	var gens []genLog
	for i := range logs {
		logs[i] = burnLog{genLog: genLog{name: fmt.Sprintf("b%03d", i)}}
		logs[i].cfg, logs[i].lines = randomBurn(rng, logs[i].name)
		gens = append(gens, logs[i].genLog)
	}
	db, paths := ingestLogs(t, gens)
	fired := 0
	for i, l := range logs {
		stopsAgree(t, db, paths[i], l.name, l.cfg, i%2 == 0)
		want := sqlFirstFire(t, db, l.name, l.cfg)
		a, err := newBurnAlert(l.cfg)
		if err != nil {
			t.Fatal(err)
		}
		var got *BurnFire
		for _, line := range l.lines {
			var good *bool
			if o, ok := line["outcome"].(string); ok {
				g := o == "ok"
				good = &g
			}
			lat, _ := line["latency_ms"].(float64)
			count := int64(1)
			if c, ok := line["count"].(int); ok {
				count = int64(c)
			}
			if got = a.add(line["t_ms"].(float64), lat, count, good); got != nil {
				break
			}
		}
		if got == nil {
			got = a.end()
		}
		if want != nil {
			fired++
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (%+v): burn_rate vs the Go twin (-sql +go):\n%s", l.name, l.cfg, diff)
		}
	}
	if fired < 30 || fired > len(logs)-20 {
		t.Errorf("%d of %d logs fire: the generator no longer tests both", fired, len(logs))
	}
}

func randomBurn(rng *rand.Rand, name string) (BurnConfig, []map[string]any) {
	slos := []hypothesis.Decimal{"0.9", "0.95", "0.99", "0.5", "0.8"}
	c := BurnConfig{SLO: slos[rng.IntN(len(slos))], Partial: rng.IntN(4) == 0}
	if rng.IntN(3) == 0 {
		c.Step = time.Duration(50*(1+rng.IntN(6))) * time.Millisecond
	}
	factors := []hypothesis.Decimal{"1", "2", "1.5", "0.5", "3", "10"}
	for range 1 + rng.IntN(3) {
		short := time.Duration([]int{100, 250, 1000}[rng.IntN(3)]) * time.Millisecond
		long := short * time.Duration(2+rng.IntN(7))
		f := factors[rng.IntN(len(factors))]
		c.Rules = append(c.Rules, hypothesis.BurnRule{Name: fmt.Sprintf("%v/%v>%s", short, long, f), Short: short, Long: long, Factor: f})
	}
	var lines []map[string]any
	t := 0.0
	pBad := rng.Float64() * 0.6
	for range 1 + rng.IntN(150) {
		if rng.IntN(5) > 0 {
			t += float64(rng.IntN(60000)) / 1000
		}
		r := map[string]any{"experiment": name, "run": "r", "role": "experiment", "t_ms": t}
		if rng.IntN(10) > 0 {
			r["latency_ms"] = float64(rng.IntN(400000)) / 1000
		}
		if rng.IntN(15) == 0 {
			r["count"] = 1 + rng.IntN(3) // and no outcome: not an SLI event
		} else {
			r["outcome"] = map[bool]string{true: "error", false: "ok"}[rng.Float64() < pBad]
			if rng.IntN(6) == 0 {
				r["count"] = 1 + rng.IntN(4)
			}
		}
		lines = append(lines, r)
	}
	return c, lines
}

func sqlFirstFire(t *testing.T, db store.Handle, exp string, c BurnConfig) *BurnFire {
	t.Helper()
	rules := make([]string, len(c.Rules))
	for i, r := range c.Rules {
		rules[i] = fmt.Sprintf("{name: '%s', short_ms: %d, long_ms: %d, factor: '%s'::DECIMAL(18,6)}",
			r.Name, r.Short.Milliseconds(), r.Long.Milliseconds(), r.Factor)
	}
	step := "NULL"
	if c.Step > 0 {
		step = fmt.Sprint(c.Step.Milliseconds())
	}
	q := fmt.Sprintf(`SELECT rule, fired_at_ms, requests_before, failed_before
		FROM burn_rate(?, (outcome = 'ok'), slo := '%s'::DECIMAL(18,9), rules := [%s], step_ms := %s, partial := %t)
		WHERE fired_at_ms IS NOT NULL`, c.SLO, strings.Join(rules, ", "), step, c.Partial)
	rows, err := db.QueryContext(context.Background(), q, exp)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var fires []BurnFire
	for rows.Next() {
		var f BurnFire
		var at sql.NullFloat64
		if err := rows.Scan(&f.Rule, &at, &f.Requests, &f.FailedBefore); err != nil {
			t.Fatal(err)
		}
		f.AtMs = at.Float64
		fires = append(fires, f)
	}
	return firstFire(fires)
}

// stopsAgree checks --stop-on burn-rate end to end: replay (the alert from
// the macro, mapped to the window of the first request sent after it) and
// Follow (the Go twin, deciding as the lines arrive) stop at the same
// window with the same alert.
func stopsAgree(t *testing.T, db store.Handle, path, exp string, c BurnConfig, count bool) {
	t.Helper()
	w := hypothesis.Window{Ms: 500}
	if count {
		w = hypothesis.Window{N: 7}
	}
	rec, err := Load(context.Background(), db, Config{Experiment: exp, Window: w, Burn: &c})
	if err != nil {
		t.Fatalf("%s: %v", exp, err)
	}
	s, err := rec.Walk(context.Background(), 0, func(Verdict) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	cfg := FollowConfig{Path: path, Rule: rec.Rule, Size: w.N, SizeMs: w.Ms, UntilEOF: true, Burn: &c}
	cfg.Rule.Burn = nil
	f, err := Follow(context.Background(), cfg, func(Verdict) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := [2]any{s.StopWindow, rec.Rule.Burn}
	if diff := cmp.Diff(want, [2]any{f.StopWindow, f.Burn}); diff != "" {
		t.Errorf("%s (%+v, window %s): stop window and alert, replay vs watch (-replay +watch):\n%s", exp, c, w, diff)
	}
}
