package analyze_test

import (
	"testing"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

// BenchmarkJudge times `rewind analyze judge` warm on the analyses
// benchmark's log (REWIND_BENCH_ROWS, default 1 M; bench/judge.sh runs
// 10 M): "steps" is the arrays' SQL alone (queries/judge.sql, every
// default metric), "func" the whole judgement as the CLI runs it, at
// Kayenta's 60 s step and, "func-1s", at 1 s steps (60 times the values to
// rank and test). Each reports its median (median-s).
func BenchmarkJudge(b *testing.B) {
	db := benchDB(b, benchRows())
	steps := func() error {
		var n int64
		return db.QueryRow(`SELECT count(*) FROM judge('bench', step_ms := 60000, metrics := ['mean', 'p50', 'p95', 'p99', 'error_rate'])`).Scan(&n)
	}
	judge := func(o analyze.JudgeOptions) func() error {
		return func() error {
			o.Experiment = "bench"
			_, _, err := analyze.Judge(store.Querier(db), o)
			return err
		}
	}
	b.Run("steps", func(b *testing.B) { timeWarm(b, steps) })
	b.Run("func", func(b *testing.B) { timeWarm(b, judge(analyze.JudgeOptions{})) })
	b.Run("func-1s", func(b *testing.B) { timeWarm(b, judge(analyze.JudgeOptions{Step: 1e9})) })
}
