package analyze

import (
	"fmt"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/store"
)

// gateCases are gate replays the Spark path must answer alike: Argo (a
// schedule that settles over several fetches; a 5 min window), Flagger,
// Keptn; every row or one role; a start off the µs (windows without a grid:
// the range join) and on it; an end.
func gateCases(t *testing.T, exp string) []GateOptions {
	argo := mustRead(t, "testdata/gate/generated/argo-5s.yaml")
	appmesh := mustRead(t, "testdata/gate/argo/appmesh-canary-rollout.yaml")
	flagger := mustRead(t, "testdata/gate/generated/flagger-10s.yaml")
	istio := mustRead(t, "testdata/gate/flagger/istio-canary.yaml")
	keptn := mustRead(t, "testdata/gate/keptn/lighthouse-slo.yaml")
	argoM := map[string]string{"success-rate": "ok_share", "latency-p95": "p95"}
	keptnM := map[string]string{"request_latency_p95": "p95", "error_rate": "error_rate"}
	return []GateOptions{
		{Experiment: exp, Kind: "argo", File: "argo-5s.yaml", Data: argo, Metrics: argoM},
		{Experiment: exp, Kind: "argo", File: "argo-5s.yaml", Data: argo, Metrics: map[string]string{"success-rate": "p99.9", "latency-p95": "mean"}, Role: "control"},
		{Experiment: exp, Kind: "argo", File: "argo-5s.yaml", Data: argo, Metrics: argoM, Start: 1500 * time.Nanosecond, Until: 40 * time.Second},
		{Experiment: exp, Kind: "argo", File: "appmesh.yaml", Data: appmesh, Metrics: map[string]string{"success-rate": "ok_share"}},
		{Experiment: exp, Kind: "flagger", File: "flagger-10s.yaml", Data: flagger},
		{Experiment: exp, Kind: "flagger", File: "istio-canary.yaml", Data: istio, Metrics: map[string]string{"request-duration": "max"}, Start: 3 * time.Second},
		{Experiment: exp, Kind: "keptn", File: "slo.yaml", Data: keptn, Metrics: keptnM, Every: time.Second},
		{Experiment: exp, Kind: "keptn", File: "slo.yaml", Data: keptn, Metrics: map[string]string{"request_latency_p95": "p50", "error_rate": "throughput"}, Every: 250 * time.Millisecond, Role: "experiment"},
		{Experiment: exp, Kind: "keptn", File: "slo.yaml", Data: keptn, Metrics: keptnM, Every: time.Millisecond},
	}
}

// Gate on Spark equals the local replay over the seed fixtures, the
// hypotheses fixture (one case of each kind) and the edge logs (every case:
// rows on window edges, count 0 and > 1, NULL latency and outcome, negative
// t_ms): both tables' JSON, or the same error; each window batch's rows
// equal the local gate macro's.
func TestGateOnSpark(t *testing.T) {
	sparkURL(t)
	t.Parallel() // a step waits mostly on the cluster's scheduling: two tests overlap it
	fixtures := ingestedDB(t, "../fixtures/chaos/gunluk.json", "../fixtures/k6/chaos.json", "../fixtures/hypotheses/checkout.ndjson")
	edge := logsDB(t, edgeLog(300), judgeEdgeLog())
	for _, db := range []*store.DB{fixtures, edge} {
		r := onSpark(t, sparkDataset(t, db))
		names, err := store.Experiments(db)
		if err != nil {
			t.Fatal(err)
		}
		for _, exp := range names {
			cases := gateCases(t, exp)
			if db == fixtures {
				// one case of each kind: the edges are the edge logs' (CI time)
				cases = []GateOptions{cases[0], cases[4], cases[6]}
			}
			for _, o := range cases {
				what := fmt.Sprintf("gate %s %s %s role %q start %v", exp, o.Kind, o.File, o.Role, o.Start)
				wm, wd, errL := Gate(db, o)
				gm, gd, errS := GateOn(r, o)
				if errL != nil || errS != nil {
					if errL == nil || errS == nil || errL.Error() != errS.Error() {
						t.Errorf("%s: local error %v, Spark error %v", what, errL, errS)
					}
					continue
				}
				for i, pair := range [][2]*Result{{wm, gm}, {wd, gd}} {
					if a, b := asJSON(t, pair[0]), asJSON(t, pair[1]); a != b || fmt.Sprint(pair[0].Notes) != fmt.Sprint(pair[1].Notes) {
						t.Errorf("%s table %d: local\n%s%v\nSpark\n%s%v", what, i, a, pair[0].Notes, b, pair[1].Notes)
					}
				}
			}
		}
	}
}

// The gate step's rows (the last batch of windows asked) equal the local
// gate macro's over the same windows, on a grid and off it, in one batch
// and across batches (gateBatch lowered to 100 for the test).
func TestGateStepOnSpark(t *testing.T) {
	sparkURL(t)
	defer func(n int) { gateBatch = n }(gateBatch)
	gateBatch = 100
	db := logsDB(t, edgeLog(300), judgeEdgeLog())
	r := onSpark(t, sparkDataset(t, db))
	var every, everyU, off, offU, odd, oddU []string
	for i := range 30000 { // a schedule of equal steps on the grid (3 M cells): one row of literals
		every, everyU = append(every, fmt.Sprint(i-2000)), append(everyU, fmt.Sprint(i-1900))
	}
	lists := "[" + join(every) + "]::DOUBLE[], [" + join(everyU) + "]::DOUBLE[]"
	var gridUs, cells int64
	if err := r.Querier().QueryRow(`SELECT g_us, cells FROM _gate_grid(`+lists+`)`).Scan(&gridUs, &cells); err != nil {
		t.Fatal(err)
	}
	if n := len(gateWindowQueries(every, everyU, gridUs)); gridUs != 1000 || cells > 4000000 || n != 1 {
		t.Fatalf("the equal steps: grid %d µs, %d cells, %d queries: want 1000 µs, at most 4 M cells, one query", gridUs, cells, n)
	}
	for i := range 125 { // off the µs: two batches of literal rows
		off, offU = append(off, fmt.Sprintf("%g", float64(i)*24-2000.0005)), append(offU, fmt.Sprintf("%g", float64(i)*24+3))
	}
	for i := range 205 { // on a grid, no two steps alike: three batches
		odd, oddU = append(odd, fmt.Sprint(i*i*i%70000-2000)), append(oddU, fmt.Sprint(i*i*i%70000-2000+i%9*125))
	}
	for _, c := range []struct {
		role        string
		from, until []string
	}{
		{"", every, everyU},
		{"experiment", off, offU},
		{"control", odd, oddU},
		{"", []string{"-2000", "0", "0", "5000", "-125"}, []string{"5000", "5000", "70000", "5000", "0"}},
		{"experiment", []string{"0.0015", "2.5", "10"}, []string{"5000.0015", "7.5", "9"}},
		{"control", []string{"-1e7", "1000"}, []string{"1e7", "2000"}},
	} {
		if err := r.gateWindowsOn("jedge", c.role, c.from, c.until); err != nil {
			t.Fatal(err)
		}
		role := "NULL"
		if c.role != "" {
			role = "'" + c.role + "'"
		}
		q := fmt.Sprintf(`SELECT * FROM gate('jedge', %s, [%s]::DOUBLE[], [%s]::DOUBLE[])`, role, join(c.from), join(c.until))
		sameStep(t, "_remote_gate", db, q, r.Querier(), q)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
