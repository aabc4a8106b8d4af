package analyze

import "testing"

// The largest values ingest takes (t_ms 4e12, latency_ms 1e11) go through
// the analyses that compute in ns or DECIMAL(18,6) without a cast error
// (latency 1e15 failed retries' DECIMAL(18,6) and thresholds' INT64); a run
// whose times span more than retries can take is named.
func TestExtremeValuesAnalyze(t *testing.T) {
	db := logsDB(t, `{"experiment":"x","run":"a","req":1,"attempt":1,"t_ms":3999999999000,"latency_ms":1e11,"outcome":"ok","tagged":false}
{"experiment":"x","run":"a","req":1,"attempt":2,"t_ms":4e12,"latency_ms":1e11,"outcome":"error","tagged":false}
{"experiment":"x","run":"a","req":2,"attempt":1,"t_ms":4e12,"latency_ms":0,"outcome":"ok","tagged":false}
{"experiment":"y","run":"b","req":1,"attempt":1,"t_ms":-4e12,"latency_ms":5,"outcome":"ok","tagged":false}
{"experiment":"y","run":"b","req":2,"attempt":1,"t_ms":4e12,"latency_ms":5,"outcome":"ok","tagged":false}
`)
	if _, err := Retries(db, RetriesOptions{Experiment: "x"}); err != nil {
		t.Errorf("retries: %v", err)
	}
	th, _ := ParseThreshold("http_req_duration: p(95)<500")
	if _, err := Thresholds(db, ThresholdsOptions{Experiment: "x", Thresholds: []Threshold{th}, Every: 1e13}); err != nil {
		t.Errorf("thresholds: %v", err)
	}
	_, err := Retries(db, RetriesOptions{Experiment: "y"})
	if want := `run "b": its t_ms span -4000000000000 to 4000000000000 ms, more than the 900000000000 ms (about 28 years) retries takes in one run`; err == nil || err.Error() != want {
		t.Errorf("retries over 8e12 ms: %v", err)
	}
}
