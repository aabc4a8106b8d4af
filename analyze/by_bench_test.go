package analyze_test

import (
	"testing"
	"time"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// BenchmarkBy times --by warm on the analyses benchmark's log
// (REWIND_BENCH_ROWS, default 1 M; bench/by.sh runs 10 M): each analysis
// as the CLI runs it (peaks, retries, amplification, burn-rate,
// falsification, stop-damage, judge), without a grouping ("whole") and
// split by the log's outcome and tagged columns (4 groups per run). Each
// reports its median (median-s).
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
	burn := func(by []string) func() error {
		return func() error {
			_, err := analyze.BurnRate(db, analyze.BurnRateOptions{Experiment: "bench", SLO: "0.99", By: by,
				Rules: []hypothesis.BurnRule{{Name: "1s/10s>5", Short: time.Second, Long: 10 * time.Second, Factor: "5"}}})
			return err
		}
	}
	fals := func(by []string) func() error {
		return func() error {
			_, err := analyze.Falsification(db, analyze.FalsificationOptions{Experiment: "bench", By: by})
			return err
		}
	}
	stop := func(by []string) func() error {
		return func() error {
			_, err := analyze.StopDamage(db, analyze.StopDamageOptions{Experiment: "bench", By: by})
			return err
		}
	}
	judge := func(by []string) func() error {
		return func() error {
			_, _, err := analyze.Judge(db, analyze.JudgeOptions{Experiment: "bench", Step: time.Second, By: by})
			return err
		}
	}
	b.Run("peaks-whole", func(b *testing.B) { timeWarm(b, peaks(nil)) })
	b.Run("peaks-by", func(b *testing.B) { timeWarm(b, peaks(by)) })
	b.Run("retries-whole", func(b *testing.B) { timeWarm(b, retries(nil)) })
	b.Run("retries-by", func(b *testing.B) { timeWarm(b, retries(by)) })
	b.Run("amplification-whole", func(b *testing.B) { timeWarm(b, amp(nil)) })
	b.Run("amplification-by", func(b *testing.B) { timeWarm(b, amp(by)) })
	b.Run("burn-rate-whole", func(b *testing.B) { timeWarm(b, burn(nil)) })
	b.Run("burn-rate-by", func(b *testing.B) { timeWarm(b, burn(by)) })
	b.Run("falsification-whole", func(b *testing.B) { timeWarm(b, fals(nil)) })
	b.Run("falsification-by", func(b *testing.B) { timeWarm(b, fals(by)) })
	b.Run("stop-damage-whole", func(b *testing.B) { timeWarm(b, stop(nil)) })
	b.Run("stop-damage-by", func(b *testing.B) { timeWarm(b, stop(by)) })
	b.Run("judge-whole", func(b *testing.B) { timeWarm(b, judge(nil)) })
	b.Run("judge-by", func(b *testing.B) { timeWarm(b, judge(by)) })
}
