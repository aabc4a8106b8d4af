package analyze

import (
	"fmt"
	"strings"
	"testing"
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
