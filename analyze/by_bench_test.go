package analyze_test

import (
	"testing"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

// BenchmarkBy times --by warm on the analyses benchmark's log
// (REWIND_BENCH_ROWS, default 1 M; bench/by.sh runs 10 M): each analysis
// as the CLI runs it, without a grouping ("whole") and split by the log's
// outcome and tagged columns (4 groups per run). Each reports its median
// (median-s).
func BenchmarkBy(b *testing.B) {
	db := store.Querier(benchDB(b, benchRows()))
	by := []string{"outcome", "tagged"}
	peaks := func(by []string) func() error {
		return func() error {
			_, err := analyze.Peaks(db, analyze.PeaksOptions{Experiment: "bench", By: by})
			return err
		}
	}
	retries := func(by []string) func() error {
		return func() error {
			_, err := analyze.Retries(db, analyze.RetriesOptions{Experiment: "bench", By: by})
			return err
		}
	}
	amp := func(by []string) func() error {
		return func() error {
			_, err := analyze.Amplification(db, analyze.AmplificationOptions{Experiment: "bench", TickMs: 1000, By: by})
			return err
		}
	}
	b.Run("peaks-whole", func(b *testing.B) { timeWarm(b, peaks(nil)) })
	b.Run("peaks-by", func(b *testing.B) { timeWarm(b, peaks(by)) })
	b.Run("retries-whole", func(b *testing.B) { timeWarm(b, retries(nil)) })
	b.Run("retries-by", func(b *testing.B) { timeWarm(b, retries(by)) })
	b.Run("amplification-whole", func(b *testing.B) { timeWarm(b, amp(nil)) })
	b.Run("amplification-by", func(b *testing.B) { timeWarm(b, amp(by)) })
}
