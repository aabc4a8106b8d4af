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
// (ties at p(95)<200), requests that end on a bucket's edge (a second of
// test time after the first send), count > 1, NULL latencies and outcomes,
// negative t_ms, and a second run that fails more.
func thresholdLog() string {
	var b strings.Builder
	for _, run := range []string{"a", "b"} {
		for i := range 300 {
			lat := []string{"100", "200", "200", "250.5", "null", "199.999"}[i%6]
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
// step's rows equal their DuckDB twins'; the status and expected_response
// tags; avg (its exact sum from the values counted per distinct value). A
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
		r.Querier(), `SELECT * FROM _remote_th_runs`)
	values := `SELECT run, id, t, v, k, n, trues, dsum, vmin, vmax
FROM _th_bucket_values(` + exp + `, ` + specs + `, ` + strings.Join([]string{every, window, sliding, duration}, ", ") + `)`
	sameStep(t, what+"_th_bucket_values", db, values, r.Querier(), values)
	sameStep(t, what+"_th_failed_buckets", db, `SELECT * FROM _th_failed_buckets(`+grid+`)`, r.Querier(), `SELECT * FROM _remote_th_failed`)
}
