package analyze

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// Omission on Spark: HdrHistogram's back-fill with a given expected
// interval equals the local one over the seed fixtures, a Vegeta log and
// the edge logs (count 0 and > 1, NULL latency, latencies on a half µs),
// and its step's rows equal the local _om_hist's; an interval off the µs
// and a log that cannot tell are refused with the local error; the derived
// interval and the schedule: TestOmissionScheduleOnSpark.
func TestOmissionOnSpark(t *testing.T) {
	sparkURL(t)
	fixtures := ingestedDB(t, "../fixtures/chaos/gunluk.json", "../fixtures/k6/chaos.json", "../fixtures/hypotheses/checkout.ndjson")
	edge := logsDB(t, edgeLog(300), judgeEdgeLog())
	if m, _, err := Omission(edge, OmissionOptions{Experiment: "jedge", Expected: 7 * time.Microsecond}); err != nil || len(m.Rows) == 0 {
		t.Fatalf("the edge log's back-fill: %v", err) // the comparisons below must cover an answer
	}
	for _, db := range []*store.DB{fixtures, edge} {
		r := onSpark(t, sparkDataset(t, db))
		names, err := store.Experiments(db)
		if err != nil {
			t.Fatal(err)
		}
		for _, exp := range names {
			for _, d := range []time.Duration{10 * time.Millisecond, 7 * time.Microsecond, time.Second, 1500 * time.Nanosecond} {
				o := OmissionOptions{Experiment: exp, Expected: d}
				what := fmt.Sprintf("omission %s expected %v", exp, d)
				compareResults(t, what, func() (*Result, error) { m, _, err := Omission(db, o); return m, err },
					func() (*Result, error) { m, _, err := OmissionOn(r, o); return m, err })
				if d == 10*time.Millisecond {
					sameStep(t, "_remote_om_hist", db, `SELECT * FROM _om_hist(`+sqllit.String(exp)+`)`, r.Querier(), `SELECT * FROM _remote_om_hist`)
				}
			}
			_, _, errL := Omission(db, OmissionOptions{Experiment: exp})
			_, _, errS := OmissionOn(r, OmissionOptions{Experiment: exp})
			if errL != nil && strings.Contains(errL.Error(), "it records when each request started") && (errS == nil || errL.Error() != errS.Error()) {
				t.Errorf("omission %s: local error %v, Spark error %v", exp, errL, errS)
			}
			if errS == nil {
				t.Errorf("omission %s on Spark: want an error", exp)
			}
		}
	}
}
