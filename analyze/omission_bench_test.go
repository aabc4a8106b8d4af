package analyze_test

import (
	"testing"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

// BenchmarkOmission times `rewind analyze omission` warm on the analyses
// benchmark's log (REWIND_BENCH_ROWS, default 1 M; bench/omission.sh runs
// 10 M), its req read as the schedule's sequence: "rate" with --rate given
// (percentiles and 1 s windows), "inferred" with the interval inferred per
// run, "backfill" HdrHistogram's back-fill at e = 10 ms. Each reports its
// median (median-s).
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
	b.Run("rate", func(b *testing.B) { timeWarm(b, run(analyze.OmissionOptions{Interval: rate})) })
	b.Run("backfill", func(b *testing.B) { timeWarm(b, run(analyze.OmissionOptions{Expected: 10e6})) })
}
