package analyze

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// thresholdLog is a log for thresholds: latencies on a threshold's value
// (ties at p(95)<200), one whose ps are a tie in doubles (150.0000000025 ·
// 1e9 is n + 0.5: DuckDB's DECIMAL(38,9) rounds it away from zero, not to
// even), requests that end on a bucket's edge (a second of
// test time after the first send), count > 1, NULL latencies and outcomes,
// negative t_ms, a second run that fails more, a third whose latencies are
// all distinct (a percentile one rank off is another value), and a fourth
// of one latency.
func thresholdLog() string {
	var b strings.Builder
	for _, run := range []string{"a", "b", "c", "d"} {
		for i := range 300 {
			lat := []string{"100", "200", "200", "250.5", "null", "199.999", "150.0000000025"}[i%7]
			switch {
			case lat == "null":
			case run == "c": // distinct latencies, in threes 1e-5 apart (a second pass picks them)
				lat = fmt.Sprint(120 + float64(i*37%100)*1.3125 + float64(i)*1e-7)
			case run == "d": // one latency: nothing to split
				lat = "175"
			}
			outcome := `"ok"`
			switch {
			case i%13 == 5 || run == "b" && i > 150 && i%3 == 0:
				outcome = `"error"`
			case i%17 == 2:
				outcome = `null`
			}
			status := []string{"200", "200", "500", "null", "404"}[i%5]
			fmt.Fprintf(&b, `{"experiment":"thr","run":"%s","req":%d,"t_ms":%d,"latency_ms":%s,"outcome":%s,"status":%s,"count":%d}`+"\n",
				run, i, i*50-200, lat, outcome, status, 1+i%3/2)
		}
	}
	return b.String()
}

func thresholdCases(exp string, many bool) []ThresholdsOptions {
	ts := func(abort bool, delay time.Duration, specs ...string) []Threshold {
		var out []Threshold
		for _, s := range specs {
			t, err := ParseThreshold(s)
			if err != nil {
				panic(err)
			}
			t.AbortOnFail, t.Delay, t.HasDelay = abort, delay, delay > 0
			out = append(out, t)
		}
		return out
	}
	out := []ThresholdsOptions{
		{Experiment: exp, Thresholds: ts(false, 0, "http_req_duration: p(95)<200", "http_req_failed: rate<0.1", "http_reqs: count>50", "http_req_duration: avg<190")},
		{Experiment: exp, Thresholds: ts(false, 0, "http_req_duration: p(90)<200", "http_req_failed: rate<0.2", "http_req_duration: avg>=180"), Window: time.Second},
	}
	if !many {
		return out
	}
	return append(out,
		ThresholdsOptions{Experiment: exp, Every: 500 * time.Millisecond, Duration: 30 * time.Second,
			Thresholds: ts(false, 0, "http_req_duration: med<=200", "http_req_duration: max<250.5", "http_req_duration: min>100", "http_reqs: rate>10")},
		ThresholdsOptions{Experiment: exp, Thresholds: ts(true, 3*time.Second, "http_req_duration: p(99)<250", "http_req_failed: rate<0.08")},
		ThresholdsOptions{Experiment: exp, Window: 2 * time.Second, Sliding: true, Every: 700 * time.Millisecond,
			Thresholds: ts(false, 0, "http_req_duration: p(99.9)<250.5", "http_req_duration: p(50)>=200", "http_reqs: count<20", "http_req_failed: rate<=0.05")},
		ThresholdsOptions{Experiment: exp, Thresholds: ts(false, 0, "http_req_duration{expected_response:true}: p(95)<200",
			"http_req_failed{status:500}: rate<0.5", "http_reqs{status:200,expected_response:false}: count<5")},
		ThresholdsOptions{Experiment: exp, Window: 3 * time.Second, Thresholds: ts(false, 0, "http_req_duration{status:404}: max<250", "http_req_duration{expected_response:false}: avg<=200")},
		ThresholdsOptions{Experiment: exp, Every: time.Nanosecond, Thresholds: ts(false, 0, "http_reqs: count>1")}) // too many evaluations
}

// Thresholds on Spark equal the local ones, cumulative and windowed
// (tumbling and sliding), over the seed fixtures (the chaos log, untimed:
// refused on both; k6's, which records no thresholds: refused on both) and
// the edge and threshold logs: percentiles with ties at the threshold and
// ends on bucket edges, min, max, med, rates, counts and counter rates,
// abortOnFail with a delay, a duration, a refused --every; each reduce
// step's rows equal their DuckDB twins' (a percentile's per bucket, every
// evaluation, the printed window's ranks); the status and expected_response
// tags; avg (its exact sum, each value rounded to the ns on the engine). A
// tag from attrs and k6's own metrics are refused.
func TestThresholdsOnSpark(t *testing.T) {
	sparkURL(t)
	t.Parallel() // a step waits mostly on the cluster's scheduling: two tests overlap it
	local := ingestedDB(t, "../fixtures/chaos/gunluk.json", "../fixtures/k6/chaos.json", "../fixtures/peaks/sekil1.csv")
	edge := logsDB(t, edgeLog(200), thresholdLog())
	failed := 0
	for _, db := range []*store.DB{local, edge} {
		r := onSpark(t, sparkDataset(t, db))
		names, err := store.Experiments(db)
		if err != nil {
			t.Fatal(err)
		}
		for _, exp := range names {
			for _, o := range append(thresholdCases(exp, db == edge), ThresholdsOptions{Experiment: exp}) {
				compareResults(t, fmt.Sprintf("thresholds %+v", o), func() (*Result, error) { return Thresholds(db, o) },
					func() (*Result, error) { return ThresholdsOn(r, o) })
				if res, err := Thresholds(db, o); err == nil {
					sameThresholdSteps(t, db, r, o)
					for _, row := range res.Rows {
						if row[res.Col("first_fail_ms")] != nil {
							failed++
						}
					}
				}
			}
		}
	}
	t.Logf("%d thresholds failed at some evaluation", failed)
	if failed < 10 {
		t.Errorf("only %d thresholds failed: the cases do not reach the verdicts", failed)
	}
	r := onSpark(t, sparkDataset(t, local))
	for _, s := range []string{"http_req_duration{method:GET}: p(95)<100", "http_req_waiting: p(95)<100"} {
		th, err := ParseThreshold(s)
		if err != nil {
			t.Fatal(err)
		}
		o := ThresholdsOptions{Experiment: "chaos", Thresholds: []Threshold{th}}
		if _, err := Thresholds(local, o); err != nil {
			t.Fatalf("%s locally: %v", s, err)
		}
		if _, err := ThresholdsOn(r, o); err == nil || !strings.Contains(err.Error(), "does not run on Spark") {
			t.Errorf("%s on Spark: %v, want a refusal", s, err)
		}
	}
}

// sameThresholdSteps compares the steps of o's last run on r with their
// twins over the local database.
func sameThresholdSteps(t *testing.T, db *store.DB, r *Remote, o ThresholdsOptions) {
	t.Helper()
	kinds, err := metricKinds(db, o.Experiment)
	if err != nil {
		t.Fatal(err)
	}
	specs, err := thresholdSpecs(o.Thresholds, kinds)
	if err != nil {
		t.Fatal(err)
	}
	exp := sqllit.String(o.Experiment)
	every, window, sliding, duration := o.thArgs()
	grid := strings.Join([]string{exp, every, window, sliding, duration}, ", ")
	what := fmt.Sprintf("%+v: ", o)
	sameStep(t, what+"_th_runs", db, `SELECT run, start_ns, start_ns + last_ns FROM _th_runs(`+exp+`, NULL)`,
		r.Querier(), `SELECT run, lo, hi FROM _remote_th_runs`)
	// the engine's rows of a percentile are its samples counted per cell,
	// not per value: what the verdicts read of them per bucket is the same
	// (the counts, sums and extremes; a percentile's counts below and up to
	// its value and the nearest values on each side)
	args := strings.Join([]string{every, window, sliding, duration}, ", ")
	stats := `SELECT f.run, f.id, f.t, sum(f.k), sum(f.n), sum(f.trues), sum(f.dsum),
       CASE WHEN s.agg NOT IN ('p', 'med') THEN min(f.vmin) END, CASE WHEN s.agg NOT IN ('p', 'med') THEN max(f.vmax) END,
       sum(f.k) FILTER (WHERE f.v < s.vd), sum(f.k) FILTER (WHERE f.v <= s.vd),
       max(f.v) FILTER (WHERE f.v < s.vd), max(f.v) FILTER (WHERE f.v <= s.vd),
       min(f.v) FILTER (WHERE f.v >= s.vd), min(f.v) FILTER (WHERE f.v > s.vd)
FROM _th_bucket_values(` + exp + `, ` + specs + `, ` + args + `) f JOIN _th_specs(` + specs + `) s ON s.id = f.id
GROUP BY f.run, f.id, f.t, s.agg`
	sameStep(t, what+"_th_bucket_values per bucket", db, stats, r.Querier(), stats)
	// every evaluation, and the values at the two ranks k6 reads in the
	// printed window (thresholds and threshold_windows interpolate them)
	evals := `SELECT * EXCLUDE (pv, pw) FROM _threshold_evals(` + exp + `, ` + specs + `, every_ms := ` + every + `, window_ms := ` + window +
		`, sliding := ` + sliding + `, duration_ms := ` + duration + `) WHERE final IS NOT NULL`
	sameStep(t, what+"_threshold_evals", db, evals, r.Querier(), evals)
	picks := `WITH x AS (SELECT * FROM _threshold_evals(` + exp + `, ` + specs + `, every_ms := ` + every + `, window_ms := ` + window +
		`, sliding := ` + sliding + `, duration_ms := ` + duration + `)),
w AS (SELECT x.run, x.id, x.lo, x.t_ns, _th_k6_rank(x.samples, s.q, false) AS rf, _th_k6_rank(x.samples, s.q, true) AS rc
      FROM x JOIN _th_specs(` + specs + `) s ON s.id = x.id WHERE x.printed AND s.agg IN ('p', 'med')),
c AS (SELECT w.run, w.id, w.rf, w.rc, v.pv, sum(sum(v.pw)) OVER (PARTITION BY w.run, w.id ORDER BY v.pv) AS below
      FROM w JOIN x v ON v.run = w.run AND v.id = w.id AND v.final IS NULL AND v.t_ns > w.lo AND v.t_ns <= w.t_ns
      GROUP BY w.run, w.id, w.rf, w.rc, v.pv)
SELECT run, id, min(pv) FILTER (WHERE below > rf), min(pv) FILTER (WHERE below > rc) FROM c GROUP BY run, id`
	sameStep(t, what+"the printed window's ranks", db, picks, r.Querier(), picks)
	if strings.Contains(specs, "'p'") || strings.Contains(specs, "'med'") {
		sameStep(t, what+"the printed window's picks", db, picks, r.Querier(), `SELECT * FROM _remote_th_picks`)
	}
	sameStep(t, what+"_th_failed_buckets", db, `SELECT * FROM _th_failed_buckets(`+grid+`)`, r.Querier(), `SELECT * FROM _remote_th_failed`)
}
