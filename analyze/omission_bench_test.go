package analyze_test

import (
	"context"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/store"
)

// BenchmarkOmission times `rewind analyze omission` warm on the analyses
// benchmark's log (REWIND_BENCH_ROWS, default 1 M; bench/omission.sh runs
// 10 M), its req read as the schedule's sequence: "rate" with --rate given
// (percentiles and 1 s windows), "inferred" with each run's interval the
// median gap stored in run_gaps (the omission macro alone),
// "inferred-end-to-end" what Omission runs on a Vegeta log without a rate
// (the same percentiles and windows), "infer-at-ingest" that gap inferred
// again, what an ingest of a Vegeta file pays for each run it changes,
// "backfill" HdrHistogram's back-fill at e = 10 ms. Each reports its
// median (median-s). The anchors, on the same rows in the same run:
// "anchor-quantiles" is one pass of the six recorded latency percentiles
// per run (the floor of any percentile analysis), "anchor-sort" the sort
// of each run by req that inferring the interval needs.
func BenchmarkOmission(b *testing.B) {
	db := benchDB(b, benchRows())
	run := func(o analyze.OmissionOptions) func() error {
		return func() error {
			o.Experiment = "bench"
			_, _, err := analyze.Omission(store.Querier(db), o)
			return err
		}
	}
	rate, err := analyze.ParseRate("500/1s")
	if err != nil {
		b.Fatal(err)
	}
	anchor := func(q string) func() error {
		return func() error { _, err := analyze.Query(store.Querier(db), "anchor", nil, q); return err }
	}
	b.Run("anchor-quantiles", func(b *testing.B) {
		timeWarm(b, anchor(`SELECT run, quantile_disc(latency_ms, [0.5, 0.9, 0.95, 0.99, 0.999, 1.0]::DECIMAL(4, 3)[]) FROM requests WHERE experiment = 'bench' GROUP BY run`))
	})
	b.Run("anchor-sort", func(b *testing.B) {
		timeWarm(b, anchor(`SELECT run, count(*) FROM (SELECT run, req, t_ms FROM requests WHERE experiment = 'bench' ORDER BY run, req, t_ms) GROUP BY run`))
	})
	b.Run("rate", func(b *testing.B) { timeWarm(b, run(analyze.OmissionOptions{Interval: rate})) })
	// The bench log is NDJSON, whose req Omission does not take for a
	// schedule without a rate, and whose gaps ingest does not store (it
	// does for Vegeta files): they are stored here, as ingest would, and
	// "inferred" runs the macro, "inferred-end-to-end" what Omission runs
	// on a Vegeta log, both reading them from run_gaps.
	if err := ingest.StoreGaps(context.Background(), db, "bench"); err != nil {
		b.Fatal(err)
	}
	b.Run("inferred", func(b *testing.B) {
		timeWarm(b, anchor(`SELECT * FROM omission('bench')`))
	})
	b.Run("inferred-end-to-end", func(b *testing.B) {
		timeWarm(b, func() error {
			return analyze.ScheduleInferred(store.Querier(db), analyze.OmissionOptions{Experiment: "bench", Window: time.Second})
		})
	})
	b.Run("infer-at-ingest", func(b *testing.B) {
		timeWarm(b, anchor(`SELECT * FROM _om_runs('bench', false, true, false)`))
	})
	b.Run("backfill", func(b *testing.B) { timeWarm(b, run(analyze.OmissionOptions{Expected: 10e6})) })
}
