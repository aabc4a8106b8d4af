package analyze_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/internal/benchlog"
	"github.com/rewind-dev/rewind/replay"
	"github.com/rewind-dev/rewind/store"
)

// The analyses benchmark (issue 12 §2): each analysis warm on a chaos-shaped
// log of REWIND_BENCH_ROWS rows (default 1,000,000; REWIND_BENCH_SHAPE says
// how its runs share it), with the library's SQL ("new") and with its
// anchor, the SQL it replaced ("old", from anchor_sql_test.go), in the same
// process on the same database. Every variant runs its statements once
// untimed, then b.N times; besides ns/op it reports the median (median-s).
// bench/analyses.sh runs it at 1 M and 10 M rows and prints the table for
// the README.
//
// "new" runs the statements the analysis sends; "func" runs the analysis's
// Go function end to end (its lookups and checks included), as the CLI does.

func benchRows() int {
	if n, err := strconv.Atoi(os.Getenv("REWIND_BENCH_ROWS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// benchShape is how the two runs share the log: "interleaved" (default:
// both runs write one log side by side, at random) or "sequential" (the
// control run's rows, then the experiment run's, as the chaos seed's
// gunluk.json holds them), from REWIND_BENCH_SHAPE.
func benchShape() string {
	if s := os.Getenv("REWIND_BENCH_SHAPE"); s != "" {
		return s
	}
	return "interleaved"
}

// benchDB opens the benchmark database of n rows (experiment "bench"),
// generating and ingesting the log the first time, and installs the anchor.
func benchDB(b *testing.B, n int) *store.DB {
	b.Helper()
	ctx := context.Background()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("rewind-bench-analyses-%s-%d", benchShape(), n))
	path := filepath.Join(dir, "bench.duckdb")
	_, statErr := os.Stat(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	db, err := store.Open(ctx, path, store.Options{Mode: store.Write})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if statErr != nil {
		logs, err := benchlog.WriteChaosLog(dir, n, benchShape())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ingest.Files(ctx, db, ingest.Options{Experiment: "bench"}, logs); err != nil {
			b.Fatal(err)
		}
		if _, err := db.Exec("CHECKPOINT"); err != nil {
			b.Fatal(err)
		}
		for _, l := range logs {
			os.Remove(l)
		}
	}
	analyze.InstallAnchor(b, db)
	return db
}

// stmt is one statement an analysis sends, with its arguments.
type stmt struct {
	q    string
	args []any
}

type benchCase struct {
	name string
	// sql is what the analysis sends, calling prefix+NAME: "" for the
	// library, "old_" for the anchor (nil for an analysis without one); the
	// field is nil when there is no SQL to time apart.
	sql func(prefix string, start int64) []stmt
	old func(db *store.DB) error // the anchor run another way (replay)
	fn  func(db *store.DB) error // the analysis's Go function, end to end
}

const margins = "[0.0::DECIMAL(18,6), 0.05::DECIMAL(18,6), 0.1::DECIMAL(18,6), 0.2::DECIMAL(18,6)]"

var benchCases = []benchCase{
	{name: "blast-radius", sql: func(p string, start int64) []stmt {
		return []stmt{
			{`SELECT count(*) FROM ` + p + `experiment_window(?, ?) WHERE ` + p + `tag_hash(20260731, req) < 0.05`, []any{"bench", start}},
			{`SELECT * FROM ` + p + `blast_radius(?, ?, ?)`, []any{"bench", start, int64(1000)}},
		}
	}, fn: func(db *store.DB) error {
		_, err := analyze.BlastRadius(db, analyze.BlastRadiusOptions{Experiment: "bench"})
		return err
	}},
	{name: "falsification", sql: func(p string, _ int64) []stmt {
		return []stmt{{`SELECT * FROM ` + p + `falsification(?, size_n := ?, size_ms := ?, margins := ` + margins + `)`, []any{"bench", int64(40), nil}}}
	}, fn: func(db *store.DB) error {
		_, err := analyze.Falsification(db, analyze.FalsificationOptions{Experiment: "bench"})
		return err
	}},
	{name: "stop-damage", sql: func(p string, _ int64) []stmt {
		return []stmt{{`SELECT * FROM ` + p + `stop_damage(?, size_n := ?, size_ms := ?, margin := 0.1, ks := [1, 2, 3, 4])`, []any{"bench", int64(40), nil}}}
	}, fn: func(db *store.DB) error {
		_, err := analyze.StopDamage(db, analyze.StopDamageOptions{Experiment: "bench"})
		return err
	}},
	{name: "changes", sql: func(p string, _ int64) []stmt {
		if p != "" {
			return nil // no anchor
		}
		return []stmt{{`SELECT * FROM changes_series(?, ?)`, []any{"bench", int64(1000)}}}
	}, fn: func(db *store.DB) error {
		_, err := analyze.Changes(db, analyze.ChangesOptions{Experiment: "bench"})
		return err
	}},
	{name: "peaks", sql: func(p string, _ int64) []stmt {
		return []stmt{{`SELECT run, resolution_ms, peak, peak_at_ms, total FROM ` + p + `peaks(?, [100, 1000]::BIGINT[], sliding := ?)`, []any{"bench", false}}}
	}, fn: func(db *store.DB) error {
		_, err := analyze.Peaks(db, analyze.PeaksOptions{Experiment: "bench"})
		return err
	}},
	{name: "peaks-sliding", sql: func(p string, _ int64) []stmt {
		return []stmt{{`SELECT * FROM ` + p + `peaks(?, [100, 1000]::BIGINT[], sliding := ?)`, []any{"bench", true}}}
	}, fn: func(db *store.DB) error {
		_, err := analyze.Peaks(db, analyze.PeaksOptions{Experiment: "bench", Sliding: true})
		return err
	}},
	{name: "retries", sql: func(p string, _ int64) []stmt {
		return []stmt{{`SELECT * FROM ` + p + `retries(?, ?, ?)`, []any{"bench", 30000.0, 60000.0}}}
	}, fn: func(db *store.DB) error {
		_, err := analyze.Retries(db, analyze.RetriesOptions{Experiment: "bench"})
		return err
	}},
	{name: "amplification", sql: func(p string, _ int64) []stmt {
		return []stmt{{`SELECT * FROM ` + p + `amplification(?)`, []any{"bench"}}}
	}, fn: func(db *store.DB) error {
		_, err := analyze.Amplification(db, analyze.AmplificationOptions{Experiment: "bench"})
		return err
	}},
	{name: "burn-rate", sql: func(p string, _ int64) []stmt {
		return []stmt{{`SELECT * FROM ` + p + `burn_rate(?, (outcome = 'ok'), slo := 0.99, rules := [{name: '1s/10s>5', short_ms: 1000, long_ms: 10000, factor: 5::DECIMAL(18,6)}])`, []any{"bench"}}}
	}, fn: func(db *store.DB) error {
		_, err := analyze.BurnRate(db, analyze.BurnRateOptions{Experiment: "bench", SLO: "0.99",
			Rules: []hypothesis.BurnRule{{Name: "1s/10s>5", Short: time.Second, Long: 10 * time.Second, Factor: "5"}}})
		return err
	}},
	// The hypotheses of issue 11 (no anchor: they are new): the p95 of 1 s
	// windows against the control's +20 %, an absolute p99 with a stop,
	// the error rate of the experiment run's second half against its
	// first, and replay of the p95 rule.
	{name: "falsification-p95", sql: func(p string, _ int64) []stmt {
		if p != "" {
			return nil
		}
		return []stmt{{`SELECT * FROM hypothesis_sweep(?, [{'f': 1200000::HUGEINT, 'a': 0::HUGEINT}], size_ms := 1000, metric := 'p95')`, []any{"bench"}}}
	}, fn: func(db *store.DB) error {
		b, _ := hypothesis.ParseBound("tolerance", "20%", "p95")
		_, err := analyze.Falsification(db, analyze.FalsificationOptions{Experiment: "bench", Window: hypothesis.Window{Ms: 1000},
			Hypothesis: hypothesis.Hypothesis{Metric: "p95"}, Bounds: []hypothesis.Bound{b}})
		return err
	}},
	{name: "stop-damage-p99-max", fn: func(db *store.DB) error {
		b, _ := hypothesis.ParseBound("max", "200ms", "p99")
		_, err := analyze.StopDamage(db, analyze.StopDamageOptions{Experiment: "bench", Window: hypothesis.Window{N: 40},
			Hypothesis: hypothesis.Hypothesis{Metric: "p99"}, Bound: &b})
		return err
	}},
	{name: "falsification-split", fn: func(db *store.DB) error {
		_, err := analyze.Falsification(db, analyze.FalsificationOptions{Experiment: "bench", Window: hypothesis.Window{N: 40},
			Hypothesis: hypothesis.Hypothesis{Metric: "error_rate", Treatment: "experiment", BaselineUntil: "500ms"}})
		return err
	}},
	{name: "replay-p95", fn: func(db *store.DB) error {
		b, _ := hypothesis.ParseBound("tolerance", "20%", "p95")
		rec, err := replay.Load(context.Background(), db, replay.Config{Experiment: "bench", Window: hypothesis.Window{Ms: 1000},
			Hypothesis: hypothesis.Hypothesis{Metric: "p95"}, Bound: &b})
		if err != nil {
			return err
		}
		return walkAndPrint(rec)
	}},
	{name: "replay-max", old: oldReplayMax, fn: replayMax},
	{name: "replay-load", fn: func(db *store.DB) error { // replay-max without the walk
		_, err := replay.Load(context.Background(), db, replay.Config{Experiment: "bench"})
		return err
	}},
}

// replayMax is rewind replay --max: load the recording (control baseline,
// experiment windows), walk it and print every window.
func replayMax(db *store.DB) error {
	ctx := context.Background()
	rec, err := replay.Load(ctx, db, replay.Config{Experiment: "bench"})
	if err != nil {
		return err
	}
	return walkAndPrint(rec)
}

func walkAndPrint(rec *replay.Recording) error {
	p, err := replay.NewPrinter(io.Discard, "table")
	if err != nil {
		return err
	}
	fmt.Fprintln(io.Discard, replay.Describe(rec))
	s, err := rec.Walk(context.Background(), 0, p.Verdict)
	if err != nil {
		return err
	}
	return replay.WriteSummary(io.Discard, s, rec.Rule)
}

// oldReplayMax is replayMax with the windows read from old_windows.
func oldReplayMax(db *store.DB) error {
	read := func(role string) ([]replay.Window, error) {
		rows, err := db.Query(`SELECT window_no, first_t_ms, last_t_ms, requests, ok, damage FROM old_windows(?, ?, size_n := ?, size_ms := ?)`,
			"bench", role, int64(40), nil)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []replay.Window
		for rows.Next() {
			var x replay.Window
			var first, last sql.NullFloat64
			if err := rows.Scan(&x.N, &first, &last, &x.Requests, &x.OK, &x.Damage); err != nil {
				return nil, err
			}
			x.FirstTMs, x.LastTMs, x.HasTMs = first.Float64, last.Float64, first.Valid && last.Valid
			out = append(out, x)
		}
		return out, rows.Err()
	}
	ctl, err := read("control")
	if err != nil {
		return err
	}
	rec := &replay.Recording{Experiment: "bench", Window: hypothesis.Window{N: 40}}
	rec.Rule.Margin, rec.Rule.StopAfter = replay.DefaultMargin, 1
	if rec.Rule.Baseline, err = replay.Baseline(ctl, "ok_share"); err != nil {
		return err
	}
	if rec.Windows, err = read("experiment"); err != nil {
		return err
	}
	return walkAndPrint(rec)
}

func runStmts(db *store.DB, ss []stmt) error {
	for _, s := range ss {
		rows, err := db.Query(s.q, s.args...)
		if err != nil {
			return fmt.Errorf("%s: %w", s.q, err)
		}
		for rows.Next() {
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

func BenchmarkAnalyses(b *testing.B) {
	n := benchRows()
	db := benchDB(b, n)
	start := int64(n / 4) // the stored start: the middle of the experiment run
	for _, c := range benchCases {
		variants := map[string]func() error{"func": func() error { return c.fn(db) }}
		if c.sql != nil {
			variants["new"] = func() error { return runStmts(db, c.sql("", start)) }
			if c.sql("old_", start) != nil { // nil: no anchor
				variants["old"] = func() error { return runStmts(db, c.sql("old_", start)) }
			}
		}
		if c.old != nil {
			variants["old"] = func() error { return c.old(db) }
		}
		for _, v := range []string{"old", "new", "func"} {
			f, ok := variants[v]
			if !ok {
				continue
			}
			b.Run(c.name+"/"+v, func(b *testing.B) { timeWarm(b, f) })
		}
	}
}

// timeWarm runs f once untimed (unless it alone takes over a minute: the
// old sliding peak at 10 M rows), then b.N times, and reports the median.
func timeWarm(b *testing.B, f func() error) {
	t0 := time.Now()
	if err := f(); err != nil {
		b.Fatal(err)
	}
	if b.N == 1 && time.Since(t0) > time.Minute {
		b.ReportMetric(time.Since(t0).Seconds(), "median-s")
		return
	}
	var ds []time.Duration
	b.ResetTimer()
	for range b.N {
		t := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t))
	}
	slices.Sort(ds)
	b.ReportMetric(ds[len(ds)/2].Seconds(), "median-s")
}
