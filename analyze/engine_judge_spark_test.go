package analyze

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// judgeEdgeLog is a log of the judge's edges: a control and an experiment run
// whose rows sit on step edges (t_ms a multiple of 250 ms and of 1 s, and
// negative), with count 0, 1 and 3, NULL latencies and outcomes, latencies
// on a half microsecond, and steps of 4 or 20 latencies (q·n whole for
// p50, p95); an experiment of the control role only (refused alike).
func judgeEdgeLog() string {
	var b strings.Builder
	for i := range 600 {
		for _, run := range []string{"control", "experiment"} {
			lat := fmt.Sprintf("%d.%04d", 3+i%17, []int{5, 15, 0, 4999, 5001}[i%5])
			if i%13 == 6 {
				lat = "null"
			}
			if run == "experiment" && i%4 == 1 {
				lat = fmt.Sprint(40 + i%7)
			}
			outcome := []string{`"ok"`, `"ok"`, `"error"`, `null`, `"ok"`}[i%5]
			fmt.Fprintf(&b, `{"experiment":"jedge","run":"%s","req":%d,"t_ms":%d,"latency_ms":%s,"outcome":%s,"count":%d}`+"\n",
				run, i, i*125-2000, lat, outcome, []int{1, 3, 1, 0, 1, 1, 2}[i%7])
		}
	}
	b.WriteString(`{"experiment":"alone","run":"control","req":1,"t_ms":5,"latency_ms":3,"outcome":"ok"}` + "\n")
	return b.String()
}

// judgeCases are the judge's options the Spark path must answer alike:
// counted steps (10 s and longer) and steps written out (shorter, and
// count steps, across a block of 65536 on the edge log), every metric, a
// metric set without a quantile, intervals.
func judgeCases(exp string) []JudgeOptions {
	all := func(names ...string) []MetricJudge {
		var out []MetricJudge
		for _, n := range names {
			out = append(out, DefaultMetricJudge(n, JudgeGroup(n)))
		}
		return out
	}
	every := all("mean", "p50", "p90", "p95", "p99", "p99.9", "max", "error_rate", "ok_share")
	return []JudgeOptions{
		{Experiment: exp},
		{Experiment: exp, Step: 10 * time.Second, Metrics: all(append(JudgeMetrics[:9:9], "throughput")...)},
		{Experiment: exp, Step: time.Second, Metrics: every},
		{Experiment: exp, Step: 250 * time.Millisecond, Metrics: all("max", "mean", "throughput")},
		{Experiment: exp, Step: 1500 * time.Microsecond, Metrics: all("error_rate")},
		{Experiment: exp, StepN: 7, Metrics: every},
		{Experiment: exp, StepN: 20},
		{Experiment: exp, StepN: 65536, Metrics: all("p99", "ok_share")},
		{Experiment: exp, Step: time.Second, Interval: 5 * time.Second, Warmup: 2 * time.Second},
		{Experiment: exp, Step: time.Nanosecond},
		{Experiment: exp, By: []string{"outcome"}},
		{Experiment: exp, Step: time.Second, By: []string{"status_class", "tagged"}, Metrics: every},
		{Experiment: exp, StepN: 9, By: []string{"outcome", "role"}, Metrics: all("p50", "max", "mean")},
		{Experiment: exp, By: []string{"outcome", "outcome"}},
	}
}

// Judge on Spark equals the local judge over the seed fixtures, the
// hypotheses fixture, the edge log of count windows and the judge's edge
// log: both tables' JSON, or the same error; the steps' rows equal the
// local _judge_steps's (EXCEPT ALL both ways). --by over columns (NULL
// groups, count steps per group) likewise, and an attrs key.
func TestJudgeOnSpark(t *testing.T) {
	sparkURL(t)
	t.Parallel() // a step waits mostly on the cluster's scheduling: two tests overlap it
	fixtures := ingestedDB(t, "../fixtures/chaos/gunluk.json", "../fixtures/k6/chaos.json", "../fixtures/hypotheses/checkout.ndjson")
	edge := logsDB(t, edgeLog(22000), judgeEdgeLog())
	for _, db := range []*store.DB{fixtures, edge} {
		r := onSpark(t, sparkDataset(t, db))
		names, err := store.Experiments(db)
		if err != nil {
			t.Fatal(err)
		}
		for _, exp := range names {
			cases := judgeCases(exp)
			if db == fixtures || exp == "alone" {
				// the plain judge, a timed step, a count step and --by: the edges are
				// the edge logs' (CI time: each case is a few Spark jobs)
				cases = []JudgeOptions{cases[0], cases[2], cases[5], cases[10]}
			}
			for _, o := range cases {
				compareJudge(t, db, r, o)
			}
		}
	}
	compareJudge(t, fixtures, onSpark(t, sparkDataset(t, fixtures)), JudgeOptions{Experiment: "checkout", By: []string{"attrs.method"}})
}

func compareJudge(t *testing.T, local store.Querier, r *Remote, o JudgeOptions) {
	t.Helper()
	what := fmt.Sprintf("judge %s step %v step_n %d", o.Experiment, o.Step, o.StepN)
	wm, ws, errL := Judge(local, o)
	gm, gs, errS := JudgeOn(r, o)
	if errL != nil || errS != nil {
		if errL == nil || errS == nil || errL.Error() != errS.Error() {
			t.Errorf("%s: local error %v, Spark error %v", what, errL, errS)
		}
		return
	}
	for i, pair := range [][2]*Result{{wm, gm}, {ws, gs}} {
		if a, b := asJSON(t, pair[0]), asJSON(t, pair[1]); a != b || fmt.Sprint(pair[0].Notes) != fmt.Sprint(pair[1].Notes) {
			t.Errorf("%s table %d: local\n%s%v\nSpark\n%s%v", what, i, a, pair[0].Notes, b, pair[1].Notes)
		}
	}
	o = o.withDefaults()
	needQ := false
	for _, m := range o.Metrics {
		needQ = needQ || metricThousandths[m.Name] > 0
	}
	n := "NULL"
	if o.StepN > 0 {
		n = fmt.Sprint(o.StepN)
	}
	g, err := groupBy(local, o.Experiment, o.By)
	if err != nil {
		t.Fatal(err)
	}
	grp := "true" // judge's key; judge_by's is {'v': grp}
	if g.key != "" {
		grp = "{'v': " + g.key + "}"
	}
	cols := "gk, role, w, requests, ok, lat_n::HUGEINT, lat_sum, lat_q"
	sameStep(t, "_remote_judge_steps", local, fmt.Sprintf(`SELECT %s FROM _judge_steps(%s, %s, %s, %s, %v)`,
		cols, sqllit.String(o.Experiment), grp, sqllit.Ms(o.Step), n, needQ), r.Querier(), `SELECT `+cols+` FROM _remote_judge_steps`)
}
