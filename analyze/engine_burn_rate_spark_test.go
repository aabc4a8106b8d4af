package analyze

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// burnLog is a log for burn rates over short windows: a run whose outcomes
// alternate (bad = half the requests in a window of an even count: a tie
// at a threshold of 0.5, which does not fire), and a run with a burst of
// failures, latencies that end requests in other buckets than they start,
// NULL outcomes and latencies, count > 1, negative t_ms and two requests
// ending at the same moment.
func burnLog() string {
	var b strings.Builder
	for i := range 600 {
		fmt.Fprintf(&b, `{"experiment":"burn","run":"even","req":%d,"t_ms":%d,"latency_ms":%d,"outcome":"%s"}`+"\n",
			i, i*5-400, 3+i%4, []string{"ok", "error"}[i%2])
		outcome, lat := `"ok"`, fmt.Sprintf("%d.%03d", i%40, i%1000)
		switch {
		case i > 300 && i < 420 && i%3 != 0:
			outcome = `"error"`
		case i%23 == 7:
			outcome = `null`
		case i%29 == 4:
			lat = "null"
		}
		fmt.Fprintf(&b, `{"experiment":"burn","run":"burst","req":%d,"t_ms":%d.5,"latency_ms":%s,"outcome":%s,"count":%d}`+"\n",
			i, i*4-100, lat, outcome, 1+i%3)
	}
	b.WriteString(`{"experiment":"burn","run":"burst","req":9000,"t_ms":1000,"latency_ms":20,"outcome":"error"}` + "\n" +
		`{"experiment":"burn","run":"burst","req":9001,"t_ms":1010,"latency_ms":10,"outcome":"error"}` + "\n")
	return b.String()
}

func burnCases(exp string, many bool) []BurnRateOptions {
	rules := func(s string) []hypothesis.BurnRule {
		r, err := hypothesis.ParseBurnRules(s)
		if err != nil {
			panic(err)
		}
		return r
	}
	out := []BurnRateOptions{
		{Experiment: exp, SLO: "0.999"},
		{Experiment: exp, SLO: "0.9", Rules: rules("100ms/1s>2,50ms/400ms>1,1s/5s>1.5")},
	}
	if !many {
		return out
	}
	return append(out,
		BurnRateOptions{Experiment: exp, SLO: "0.5", Rules: rules("20ms/100ms>1,10ms/40ms>1")},
		BurnRateOptions{Experiment: exp, SLO: "0.95", Rules: rules("100ms/1s>2,30ms/300ms>1"), Step: 30 * time.Millisecond},
		BurnRateOptions{Experiment: exp, SLO: "0.99", Rules: rules("100ms/2s>3,1s/10s>1"), Partial: true, Period: time.Hour},
		BurnRateOptions{Experiment: exp, SLO: "0.9", Rules: rules("1ms/1s>2")}) // a short window of too many
}

// Burn rates on Spark equal the local ones over the seed fixtures (the
// chaos log, untimed: refused on both) and the edge and burn logs: the
// default rules, several rules, a step, partial windows, a tie at the
// threshold, a short window refused for its count; each reduce step's rows
// equal its DuckDB twin's (the span, _br_bucket_sums, and the candidate
// buckets' end moments summed from _br_points). --good is refused; --by
// is TestBurnRateByOnSpark's.
func TestBurnRateOnSpark(t *testing.T) {
	sparkURL(t)
	t.Parallel() // a step waits mostly on the cluster's scheduling: two tests overlap it
	local := ingestedDB(t, "../fixtures/chaos/gunluk.json", "../fixtures/k6/chaos.json", "../fixtures/peaks/sekil1.csv")
	edge := logsDB(t, edgeLog(400), burnLog())
	fired, ends := 0, 0
	for _, db := range []*store.DB{local, edge} {
		r := onSpark(t, sparkDataset(t, db))
		names, err := store.Experiments(db)
		if err != nil {
			t.Fatal(err)
		}
		for _, exp := range names {
			for _, o := range burnCases(exp, db == edge) {
				compareResults(t, fmt.Sprintf("burn-rate %+v", o), func() (*Result, error) { return BurnRate(db, o) },
					func() (*Result, error) { return BurnRateOn(r, o) })
				if res, err := BurnRate(db, o); err == nil {
					sameBurnSteps(t, db, r, o)
					for _, row := range res.Rows {
						if row[res.Col("fired_at_ms")] != nil {
							fired++
						}
					}
					ends += len(rowStrings(t, r.Querier(), `SELECT * FROM _remote_br_ends`))
				}
			}
		}
	}
	t.Logf("%d rules fired, %d end moments came back", fired, ends)
	if fired < 10 || ends < 100 {
		t.Errorf("%d rules fired, %d end moments came back: the cases do not reach the candidates", fired, ends)
	}
	r := onSpark(t, sparkDataset(t, local))
	for _, o := range []BurnRateOptions{{Experiment: "chaos", SLO: "0.99", Good: "outcome = 'ok'"}} {
		if _, err := BurnRateOn(r, o); err == nil {
			t.Errorf("%+v on Spark: want a refusal", o)
		}
	}
}

// sameBurnSteps compares the steps of o's last run on r with their twins
// over the local database.
func sameBurnSteps(t *testing.T, db *store.DB, r *Remote, o BurnRateOptions) {
	t.Helper()
	rules := o.Rules
	if len(rules) == 0 {
		rules = hypothesis.DefaultBurnRules
	}
	q := hypothesis.BurnQuery{SLO: o.SLO, Rules: rules, Period: o.Period, Step: o.Step, Partial: o.Partial}
	exp := sqllit.String(o.Experiment)
	var g int64
	if err := db.QueryRow(q.BucketSizeSQL()).Scan(&g); err != nil {
		t.Fatal(err)
	}
	what := fmt.Sprintf("%+v: ", o)
	sameStep(t, what+"span", db, `SELECT span_ns, max_latency_ms FROM _br_span()`,
		r.Querier(), `SELECT span_ns, max_latency_ms FROM _remote_br_span`)
	samePlan(t, what, db, q, r, exp)
	cands := strings.Replace(q.CandidateBucketsSQL(), "?", exp, 1)
	sameStep(t, what+"end moments", db, fmt.Sprintf(`SELECT p.run, p.end_ns AS t, sum(p.n)::HUGEINT, sum(p.bad)::HUGEINT, min(p.t_ms)
FROM _br_points(%s, (outcome = 'ok'), true) p SEMI JOIN (%s) c ON p.run = c.run AND _br_floor(p.end_ns, %d) = c.k
GROUP BY p.run, p.end_ns`, exp, cands, g), r.Querier(), `SELECT * FROM _remote_br_ends`)
}

// samePlan compares the bound the engine computed for q (every row it
// brought back) with _br_plan's over the local database, whose prefix sums
// are kept only at the buckets just before those the candidates need (the
// ones the exact search reads). q's Group is the local group (the engine's
// _br_plan reads its own).
func samePlan(t *testing.T, what string, db *store.DB, q hypothesis.BurnQuery, r *Remote, exp string) {
	t.Helper()
	cols := "part, run, gk, id, k, lo, hi, cn, cb, t0, e1, dur, total, bad_total, unjudged"
	local := strings.Replace(q.PlanSQL(), "?", exp, 1)
	q.Group = ""
	remote := strings.Replace(q.PlanSQL(), "?", exp, 1)
	sameStep(t, what+"_br_plan", db, fmt.Sprintf(`WITH p AS (%s)
SELECT %s FROM p
WHERE part <> 'pre' OR EXISTS (SELECT 1 FROM p b WHERE b.part = 'pb' AND b.run = p.run AND b.gk IS NOT DISTINCT FROM p.gk AND b.k = p.k + 1)`, local, cols),
		r.Querier(), fmt.Sprintf(`SELECT %s FROM (%s)`, cols, remote))
}

// What burn-rate on Spark refuses where the local run answers. A dataset
// written elsewhere may hold a negative latency, which ingest refuses: it
// is refused naming the experiment and the value (the bound fills a run's
// buckets from the run's first send, which such a request's end precedes).
// A long window of more than 2^31 buckets is refused by name (the bound's
// lags take an INT offset on Spark).
func TestBurnRateRefusalsOnSpark(t *testing.T) {
	sparkURL(t)
	t.Parallel()
	db := logsDB(t, burnLog())
	if _, err := db.Exec(`UPDATE requests SET latency_ms = -0.5 WHERE run = 'even' AND req = 7`); err != nil {
		t.Fatal(err)
	}
	r := onSpark(t, sparkDataset(t, db))
	o := BurnRateOptions{Experiment: "burn", SLO: "0.999"}
	if _, err := BurnRateOn(r, o); err == nil || !strings.Contains(err.Error(), `experiment "burn" has a request with latency_ms -0.5`) {
		t.Fatalf("burn-rate over a negative latency on Spark: got %v, want a refusal naming it", err)
	}
	if _, err := db.Exec(`UPDATE requests SET latency_ms = 0.5 WHERE run = 'even' AND req = 7`); err != nil {
		t.Fatal(err)
	}
	r = onSpark(t, sparkDataset(t, db))
	compareResults(t, "burn-rate without it", func() (*Result, error) { return BurnRate(db, o) },
		func() (*Result, error) { return BurnRateOn(r, o) })
	rules, err := hypothesis.ParseBurnRules("1ms/72h>1")
	if err != nil {
		t.Fatal(err)
	}
	o.Rules = rules
	if _, err := BurnRate(db, o); err != nil {
		t.Fatalf("%+v locally: %v", o, err)
	}
	var ne *NotOnEngineError
	if _, err := BurnRateOn(r, o); !errors.As(err, &ne) || !strings.Contains(err.Error(), "2^31 buckets") {
		t.Errorf("%+v on Spark: got %v, want a refusal of the long window by name", o, err)
	}
}
