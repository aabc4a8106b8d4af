package analyze

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
)

// 400 rows of count 100,000 stand for 40 M requests: thresholds, judge's
// short steps and omission, which write such rows out once per request,
// refuse them (naming the largest row) instead of building 40 M rows;
// judge's 60 s steps, which weigh rows by count, still run.
func TestCountExpansionBound(t *testing.T) {
	var b strings.Builder
	for _, run := range []string{"control", "experiment"} {
		for i := range 200 {
			fmt.Fprintf(&b, `{"run":%q,"req":%d,"attempt":1,"t_ms":%d,"latency_ms":%d,"outcome":"ok","tagged":false,"count":100000}`+"\n", run, i, i*100, 10+i%7)
		}
	}
	db := logsDB(t, b.String())
	const want = `its rows with count > 1 stand for 40000000 requests, more than the 10000000 that %s writes out one by one (the largest, run "control" seq `
	th, err := ParseThreshold("http_req_duration: p(95)<500")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Thresholds(db, ThresholdsOptions{Thresholds: []Threshold{th}}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf(want, "thresholds")) {
		t.Errorf("thresholds: %v", err)
	}
	if _, _, err := Judge(db, JudgeOptions{Step: 1e9}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf(want, "judge")) {
		t.Errorf("judge, 1 s steps: %v", err)
	}
	if _, _, err := Judge(db, JudgeOptions{}); err != nil {
		t.Errorf("judge, 60 s steps: %v", err)
	}
	rate, _ := ParseRate("10/1s")
	if _, _, err := Omission(db, OmissionOptions{Interval: rate}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf(want, "omission")) {
		t.Errorf("omission: %v", err)
	}
}

// A step or tick of 1 ns over a run of seconds is refused before any SQL
// builds its lists, naming the parameter.
func TestTickBounds(t *testing.T) {
	db := logsDB(t, `{"run":"control","req":1,"attempt":1,"t_ms":0,"latency_ms":5,"outcome":"ok","tagged":false}
{"run":"experiment","req":1,"attempt":1,"t_ms":5000,"latency_ms":5,"outcome":"ok","tagged":false}
`)
	if _, _, err := Judge(db, JudgeOptions{Step: 1}); err == nil || err.Error() != "step 1ns over the experiment's 5000 ms makes 5000000001 steps, more than 1000000: a longer step" {
		t.Errorf("judge step 1ns: %v", err)
	}
	th, _ := ParseThreshold("http_req_duration: p(95)<500")
	for _, c := range []struct {
		o    ThresholdsOptions
		want string
	}{
		{ThresholdsOptions{Every: 1}, "every 1ns over the longest run's 5 ms makes 5000000 evaluations, more than 1000000: a longer every"},
		{ThresholdsOptions{Window: 1}, "window 1ns over the longest run's 5 ms makes 5000000 windows, more than 1000000: a longer window"},
		{ThresholdsOptions{Every: time.Millisecond, Duration: 100000 * time.Hour}, "every 1ms over duration, 360000000000 ms makes 360000000000 evaluations, more than 1000000: a longer every"},
	} {
		c.o.Thresholds = []Threshold{th}
		if _, err := Thresholds(db, c.o); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v", c.o, err)
		}
	}
}

// A step is held to the experiment's own span, not the table's: 1µs
// over an experiment of 5 ms beside one of 5 s passes, and the long one is
// refused with its own span.
func TestJudgeStepBoundPerExperiment(t *testing.T) {
	db := logsDB(t, `{"run":"control","req":1,"attempt":1,"t_ms":0,"latency_ms":5,"outcome":"ok","tagged":false}
{"run":"experiment","req":1,"attempt":1,"t_ms":5000,"latency_ms":5,"outcome":"ok","tagged":false}
`, `{"run":"control","req":1,"attempt":1,"t_ms":0,"latency_ms":5,"outcome":"ok","tagged":false}
{"run":"experiment","req":1,"attempt":1,"t_ms":5,"latency_ms":5,"outcome":"ok","tagged":false}
`)
	if _, _, err := Judge(db, JudgeOptions{Experiment: "b", Step: time.Microsecond}); err != nil {
		t.Errorf("b, 5 ms at 1µs: %v", err)
	}
	if _, _, err := Judge(db, JudgeOptions{Experiment: "a", Step: time.Microsecond}); err == nil || err.Error() != "step 1µs over the experiment's 5000 ms makes 5000001 steps, more than 1000000: a longer step" {
		t.Errorf("a, 5000 ms at 1µs: %v", err)
	}
}

// A burn-rate rule of 1 ns over seconds of log is refused, naming it.
func TestBurnWindowBound(t *testing.T) {
	db := logsDB(t, `{"run":"a","req":1,"attempt":1,"t_ms":0,"latency_ms":5,"outcome":"ok","tagged":false}
{"run":"a","req":2,"attempt":1,"t_ms":5000,"latency_ms":5,"outcome":"error","tagged":false}
`)
	rules, err := hypothesis.ParseBurnRules("1ms/1s>1,1ns/1s>1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = BurnRate(db, BurnRateOptions{SLO: "99%", Rules: rules})
	if err == nil || err.Error() != "rules 1ns/1s>1: its short window of 1ns over the experiment's 5005 ms makes 5005000000 windows, more than 1000000: a longer short window" {
		t.Errorf("1ns/1s>1: %v", err)
	}
}

// The bound from the whole table's extremes decides nothing alone: an
// experiment of 10 ms beside one of 5 s takes a 1µs short window, which
// the table's span of 5005 ms would refuse, and the long one is refused
// with its own span.
func TestBurnWindowBoundPerExperiment(t *testing.T) {
	db := logsDB(t, `{"run":"a","req":1,"attempt":1,"t_ms":0,"latency_ms":5,"outcome":"ok","tagged":false}
{"run":"a","req":2,"attempt":1,"t_ms":5000,"latency_ms":5,"outcome":"error","tagged":false}
`, `{"run":"b","req":1,"attempt":1,"t_ms":0,"latency_ms":5,"outcome":"ok","tagged":false}
{"run":"b","req":2,"attempt":1,"t_ms":5,"latency_ms":5,"outcome":"error","tagged":false}
`)
	rules, err := hypothesis.ParseBurnRules("1us/1s>1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := BurnRate(db, BurnRateOptions{Experiment: "b", SLO: "0.99", Rules: rules, Partial: true}); err != nil {
		t.Errorf("b, 10 ms at 1us: %v", err)
	}
	_, err = BurnRate(db, BurnRateOptions{Experiment: "a", SLO: "0.99", Rules: rules})
	if err == nil || err.Error() != "rules 1µs/1s>1: its short window of 1µs over the experiment's 5005 ms makes 5005000 windows, more than 1000000: a longer short window" {
		t.Errorf("a, 5005 ms at 1us: %v", err)
	}
}
