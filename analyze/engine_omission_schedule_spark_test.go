package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/internal/sqllit"
)

// scheduleEdgeLog is a constant-rate log with the edges omission's steps
// must keep: run "many" has 6,000 rows whose lags and latencies are
// spread (more than a pass brings back by value), counts 0, 1 and 3, NULL
// latencies, negative t_ms and latencies on a half µs; run o'b\rien ten
// rows where q·n is whole (p50 the 5th, p90 the 9th); run "nolat" no
// latency at all; run "zero" only rows of count 0 (in the windows, not in
// the percentiles). Most of run many's rows name one of three clients,
// the rest none; its starts span 80 blocks of 2^20 µs.
func scheduleEdgeLog() string {
	var b strings.Builder
	line := func(run string, req int, tms, lat string, count int) {
		client := "null" // --closed-loop's gaps: per client, of the run without one
		if run == "many" && req%5 != 0 {
			client = fmt.Sprintf(`"c%d"`, req%3)
		}
		fmt.Fprintf(&b, `{"experiment":"sched","run":"%s","req":%d,"t_ms":%s,"latency_ms":%s,"outcome":"ok","count":%d,"client_id":%s}`+"\n", run, req, tms, lat, count, client)
	}
	b.WriteString(`{"record":"experiment","experiment":"sched"}` + "\n")
	b.WriteString(`{"record":"run","experiment":"sched","run":"o'b\\rien","role":"experiment"}` + "\n")
	for i := range 6000 {
		lat := fmt.Sprintf("%d.%04d", 3+i*37%400, 5*(i%3))
		if i%53 == 7 {
			lat = "null"
		}
		count := 1
		switch {
		case i%4 == 0:
			count = 3
		case i%97 == 5:
			count = 0
		}
		line("many", i, fmt.Sprintf("%d.%03d", i*14-50+(i*7919)%900, i%1000), lat, count)
	}
	for i, tms := range []int{0, 100, 200, 450, 460, 500, 600, 700, 800, 900} {
		line(`o'b\\rien`, i, fmt.Sprint(tms), fmt.Sprint(10+i%3*5), 1)
	}
	for i := range 5 {
		line("nolat", i, fmt.Sprint(i*150), "null", 1+i%2)
		line("zero", i+3, fmt.Sprint(i*90-20), "4", 0)
	}
	return b.String()
}

// vegetaRuns is a Vegeta file of two attacks: "even" every 20 ms with a
// jitter of a few ms and seqs 100 and 101 lost (1,500 gaps), "tiny"
// tinySchedule's.
func vegetaRuns() string {
	var b strings.Builder
	base := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	at := func(run string, n int, us int) {
		ts := base.Add(time.Duration(us) * time.Microsecond).Format("2006-01-02T15:04:05.000000Z07:00")
		fmt.Fprintf(&b, `{"attack":%q,"seq":%d,"code":200,"timestamp":%q,"latency":%d,"bytes_out":0,"bytes_in":0,"error":"","body":null,"method":"GET","url":"http://127.0.0.1/"}`+"\n",
			run, n, ts, 1000000+(n*7717)%5000000)
	}
	for n := range 1500 {
		if n != 100 && n != 101 {
			at("even", n, n*20000+(n*4513)%3001)
		}
	}
	for n, tms := range []int{0, 100, 200, 450, 460, 500, 600, 700, 800, 900} {
		at("tiny", n, tms*1000)
	}
	return b.String()
}

// The constant-rate schedule on Spark: omission's percentiles and windows
// over the schedule edge log (a rate of 7/100ms: an interval of 100000/7
// µs) and a Vegeta log (the interval inferred per run from the median gap)
// are the local run's JSON, and each reduce step's rows equal its DuckDB
// twin's (_om_runs, _om_picks, _om_window_sums); so is the back-fill with
// the interval derived per run and client (--closed-loop, _om_expected);
// --requests is refused by name.
func TestOmissionScheduleOnSpark(t *testing.T) {
	sparkURL(t)
	dir := t.TempDir()
	sched, veg, lone := filepath.Join(dir, "sched.ndjson"), filepath.Join(dir, "vegeta.json"), filepath.Join(dir, "lone.json")
	if err := os.WriteFile(sched, []byte(scheduleEdgeLog()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(veg, []byte(vegetaRuns()), 0o644); err != nil {
		t.Fatal(err)
	}
	// no two consecutive seqs: the rate cannot be inferred
	if err := os.WriteFile(lone, []byte(vegetaLines("lone", []int{0, 2}, []int{0, 50})), 0o644); err != nil {
		t.Fatal(err)
	}
	db := ingestedDB(t, sched, veg, lone)
	r := onSpark(t, sparkDataset(t, db))
	rate, err := ParseRate("7/100ms")
	if err != nil || rate.Den != 7 {
		t.Fatalf("ParseRate(7/100ms) = %v, %v", rate, err)
	}
	both := func(what string, o OmissionOptions) {
		t.Helper()
		mL, wL, errL := Omission(db, o)
		start := time.Now()
		mS, wS, errS := OmissionOn(r, o)
		t.Logf("%s: %v on Spark (%+v)", what, time.Since(start), r.eng.(interface{ Stats() engine.Stats }).Stats())
		if errL != nil {
			t.Fatalf("%s: %v", what, errL) // the comparisons must cover an answer
		}
		if errL != nil || errS != nil {
			if errL == nil || errS == nil || errL.Error() != errS.Error() {
				t.Errorf("%s: local error %v, Spark error %v", what, errL, errS)
			}
			return
		}
		if len(mL.Rows) == 0 || (wL != nil && len(wL.Rows) == 0) || (wL == nil) != (wS == nil) {
			t.Fatalf("%s: the local run has no rows to compare, or one run has no windows", what)
		}
		pairs := [][2]*Result{{mL, mS}}
		if wL != nil {
			pairs = append(pairs, [2]*Result{wL, wS})
		}
		for _, p := range pairs {
			if a, b := asJSON(t, p[0]), asJSON(t, p[1]); a != b || fmt.Sprint(p[0].Notes) != fmt.Sprint(p[1].Notes) {
				t.Errorf("%s: local\n%s%v\nSpark\n%s%v", what, a, p[0].Notes, b, p[1].Notes)
			}
		}
	}
	both("sched at 7/100ms", OmissionOptions{Experiment: "sched", Interval: rate, Window: 250 * time.Millisecond})
	lit := func(s string) string { return sqllit.String(s) }
	sameStep(t, "_remote_om_picks", db, `SELECT * FROM _om_picks('sched', 100000, 7, NULL)`, r.Querier(), `SELECT * FROM _remote_om_picks`)
	sameStep(t, "_remote_om_window_sums", db, `SELECT * FROM _om_window_sums('sched', 100000, 7, 250000, NULL)`, r.Querier(), `SELECT * FROM _remote_om_window_sums`)
	const runsCols = `run, rows, with_req, with_t, missing, first_req, last_req`
	sameStep(t, "_remote_om_runs0", db, `SELECT `+runsCols+` FROM _om_runs('sched', true, false, false)`, r.Querier(), `SELECT `+runsCols+` FROM _remote_om_runs`)

	both("vegeta inferred", OmissionOptions{Experiment: "vegeta"})
	sameStep(t, "_remote_om_runs", db, `SELECT `+runsCols+`, gap_us FROM _om_runs(`+lit("vegeta")+`, true, true, false)`, r.Querier(), `SELECT `+runsCols+`, gap_us FROM _remote_om_runs`)
	both("sched closed loop", OmissionOptions{Experiment: "sched", ClosedLoop: true})
	// the gaps' count, least and greatest (the gaps across the blocks' edges included)
	sameStep(t, "_remote_om_expected_n", db, `SELECT run, 0 AS k, count(gap) AS n, min(gap) AS lo, max(gap) AS hi FROM (
		SELECT run, round(t_ms * 1000)::BIGINT - lag(round(t_ms * 1000)::BIGINT) OVER (PARTITION BY run, client_id ORDER BY t_ms, seq) AS gap
		FROM requests WHERE experiment = 'sched' AND t_ms IS NOT NULL) WHERE gap IS NOT NULL GROUP BY run`, r.Querier(), `SELECT * FROM _remote_om_expected_n`)
	sameStep(t, "_remote_om_expected", db, `SELECT run, e FROM _om_expected('sched', NULL)`, r.Querier(), `SELECT * FROM _remote_om_expected`)
	// the local refusal comes first, --requests or not
	_, _, errL := Omission(db, OmissionOptions{Experiment: "lone", Requests: true})
	_, _, errS := OmissionOn(r, OmissionOptions{Experiment: "lone", Requests: true})
	if errL == nil || errS == nil || errL.Error() != errS.Error() || !strings.Contains(errL.Error(), "cannot be inferred") {
		t.Errorf("lone: local error %v, Spark error %v, want the same refusal of the rate", errL, errS)
	}
	if _, _, err := OmissionOn(r, OmissionOptions{Experiment: "sched", Interval: rate, Requests: true}); err == nil || !strings.Contains(err.Error(), "does not run on Spark") {
		t.Errorf("--requests on Spark: %v, want a refusal", err)
	}
}
