package replay

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rewind-dev/rewind/store"
)

// stopRow is one k of stop-damage, from SQL or from replay.
type stopRow struct {
	K               int
	StopWindow      int64 // 0: never
	DamageUntilStop int64
}

// falsRow is falsification's verdict on the experiment run for one margin.
type falsRow struct {
	Falsified, Windows int64
	First              int64 // 0: none
}

const maxK = 5

// TestAgreesWithSQL is the property test: on many generated logs, replay
// (the Go evaluator over the windows macro) finds the same stop window and
// damage as the stop_damage macro for every k, and the same falsified
// windows as the falsification macro; and Follow, reading the file line by
// line as watch does, decides the same windows as replay.
func TestAgreesWithSQL(t *testing.T) {
	rng := rand.New(rand.NewPCG(20260731, 6))
	logs := make([]genLog, 160)
	for i := range logs {
		logs[i] = generate(rng, i)
	}
	db, paths := ingestLogs(t, logs)
	ctx := context.Background()
	ties := 0
	for i, g := range logs {
		rec, err := Load(ctx, db, Config{Experiment: g.name, Window: g.window, Margin: g.margin})
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		verdicts, got := replayAll(t, rec)
		if diff := cmp.Diff(sqlStops(t, db, g), got); diff != "" {
			t.Errorf("%s (window %s, margin %s): stop-damage vs replay (-sql +replay):\n%s", g.name, g.window, Decimal(g.margin), diff)
		}
		if diff := cmp.Diff(sqlFalsified(t, db, g), falsified(verdicts)); diff != "" {
			t.Errorf("%s: falsification vs replay (-sql +replay):\n%s", g.name, diff)
		}
		ties += countTies(verdicts)
		followAgrees(t, paths[i], rec, verdicts)
	}
	if ties < 40 {
		t.Errorf("only %d windows tie the threshold: the generator no longer tests ties", ties)
	}
}

// replayAll walks the recording with k = 1 and reads the stop for every k
// off the streaks, then checks that walking with each k gives the same.
func replayAll(t *testing.T, rec *Recording) ([]Verdict, []stopRow) {
	t.Helper()
	var first []Verdict
	var rows []stopRow
	for k := 1; k <= maxK; k++ {
		r := *rec
		r.Rule.StopAfter = k
		var vs []Verdict
		s, err := r.Walk(context.Background(), 0, func(v Verdict) error { vs = append(vs, v); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if k == 1 {
			first = vs
		}
		rows = append(rows, stopRow{K: k, StopWindow: s.StopWindow, DamageUntilStop: s.DamageUntilStop})
	}
	return first, rows
}

func sqlStops(t *testing.T, db store.Handle, g genLog) []stopRow {
	t.Helper()
	n, ms := sizeArgs(g)
	return queryStops(t, db, fmt.Sprintf(`SELECT k, coalesce(stop_window, 0), damage_until_stop
		FROM stop_damage(?, size_n := ?, size_ms := ?, margin := %s::DECIMAL(18,6), ks := [1, 2, 3, 4, 5])`, Decimal(g.margin)), g.name, n, ms)
}

// queryStops reads (k, stop window, damage until the stop) rows.
func queryStops(t *testing.T, db store.Handle, q string, args ...any) []stopRow {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []stopRow
	for rows.Next() {
		var r stopRow
		if err := rows.Scan(&r.K, &r.StopWindow, &r.DamageUntilStop); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func sqlFalsified(t *testing.T, db store.Handle, g genLog) falsRow {
	t.Helper()
	n, ms := sizeArgs(g)
	q := fmt.Sprintf(`SELECT experiment_falsified, experiment_windows, coalesce(first_falsified_window, 0)
		FROM falsification(?, size_n := ?, size_ms := ?, margins := [%s::DECIMAL(18,6)])`, Decimal(g.margin))
	var r falsRow
	if err := db.QueryRowContext(context.Background(), q, g.name, n, ms).Scan(&r.Falsified, &r.Windows, &r.First); err != nil {
		t.Fatal(err)
	}
	return r
}

func sizeArgs(g genLog) (any, any) {
	if g.window.N > 0 {
		return g.window.N, nil
	}
	return nil, g.window.Ms
}

func falsified(vs []Verdict) falsRow {
	r := falsRow{Windows: int64(len(vs))}
	for _, v := range vs {
		if v.Falsified {
			r.Falsified++
			if r.First == 0 {
				r.First = v.Window
			}
		}
	}
	return r
}

func countTies(vs []Verdict) int {
	n := 0
	for _, v := range vs {
		if v.OKShare != nil && v.OKShare.Cmp(v.Threshold) == 0 {
			n++
		}
	}
	return n
}

// followAgrees reads the log as watch does, with k = 1 so Follow stops at
// replay's first stop, and compares the verdicts up to there.
func followAgrees(t *testing.T, path string, rec *Recording, want []Verdict) {
	t.Helper()
	followSplitAgrees(t, path, rec, want, nil)
}

// followSplitAgrees is followAgrees with a time split: Follow takes the
// baseline itself from the rows before splitMs.
func followSplitAgrees(t *testing.T, path string, rec *Recording, want []Verdict, splitMs *float64) {
	t.Helper()
	var got []Verdict
	cfg := FollowConfig{Path: path, Rule: rec.Rule, Size: rec.Window.N, SizeMs: rec.Window.Ms, UntilEOF: true, SplitMs: splitMs}
	cfg.Rule.StopAfter = 1
	if splitMs != nil {
		cfg.Rule.Baseline = nil
	}
	if _, err := Follow(context.Background(), cfg, func(v Verdict) error { got = append(got, v); return nil }); err != nil {
		t.Fatal(err)
	}
	for i, v := range want {
		if v.Stop {
			want = want[:i+1]
			break
		}
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(sameRat)); diff != "" {
		t.Errorf("%s: follow vs replay (-replay +follow):\n%s", path, diff)
	}
}

// sameRat compares two exact values; nil is no value.
func sameRat(a, b *big.Rat) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Cmp(b) == 0
}
