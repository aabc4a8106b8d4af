package analyze

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rewind-dev/rewind/store"
)

// point is a request row for the property tests: a run, a time and a count.
type point struct {
	run string
	t   float64
	n   int64
}

// randomRaw draws raw rows (count 1) for one to three runs named
// prefix/A, prefix/B, ...: a uniform background plus a burst, at µs
// resolution or, in some cases, whole ms, so that rows fall exactly on
// bucket and window edges.
func randomRaw(r *rand.Rand, prefix string) []point {
	var pts []point
	wholeMs := r.IntN(3) == 0
	for run := range 1 + r.IntN(3) {
		name := fmt.Sprintf("%s/%c", prefix, 'A'+run)
		burstAt, burstLen := r.Int64N(4_000_000), 1+r.Int64N(300_000)
		for range 1 + r.IntN(300) {
			us := r.Int64N(5_000_000)
			if r.IntN(3) == 0 {
				us = burstAt + r.Int64N(burstLen)
			}
			if wholeMs {
				us -= us % 1000
			}
			pts = append(pts, point{name, float64(us) / 1000, 1})
		}
	}
	return pts
}

// binned is what a dashboard exports: per run, the count in each aligned
// bucket [k·base, (k+1)·base), stamped with the bucket's start.
func binned(raw []point, base int64) []point {
	type key struct {
		run string
		k   int64
	}
	counts := map[key]int64{}
	for _, p := range raw {
		counts[key{p.run, int64(math.Floor(p.t / float64(base)))}] += p.n
	}
	out := make([]point, 0, len(counts))
	for k, n := range counts {
		out = append(out, point{k.run, float64(k.k * base), n})
	}
	return out
}

// insertPoints writes pts as requests of experiment exp, through a CSV file
// (a long VALUES list takes DuckDB seconds to parse).
func insertPoints(t *testing.T, db *store.DB, exp string, pts []point) {
	t.Helper()
	var b strings.Builder
	b.WriteString("run,t_ms,count\n")
	for _, p := range pts {
		fmt.Fprintf(&b, "%s,%s,%d\n", p.run, strconv.FormatFloat(p.t, 'g', -1, 64), p.n)
	}
	path := filepath.Join(t.TempDir(), exp+".csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := db.Exec(`INSERT INTO requests (experiment, run, role, seq, attempt, t_ms, outcome, tagged, count, file_id, line)
		SELECT ?, run, '', row_number() OVER (), 0, t_ms, 'ok', false, count, 0, row_number() OVER ()
		FROM read_csv(?, header = true, columns = {'run': 'VARCHAR', 't_ms': 'DOUBLE', 'count': 'BIGINT'})`, exp, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO experiments VALUES (?, NULL)`, exp); err != nil {
		t.Fatal(err)
	}
}

// TestPeaksPreBinnedEqualsRaw is the property behind the count column: a
// series binned at some base resolution and the raw rows it came from give
// the same peaks, peak starts and totals at every multiple of the base. Each
// base gets one raw and one binned experiment of 40 random cases, a case
// being up to three runs (peaks are per run, so cases do not mix).
func TestPeaksPreBinnedEqualsRaw(t *testing.T) {
	db := ingestedDB(t)
	r := rand.New(rand.NewPCG(20261130, 4))
	for _, base := range []int64{1, 5, 10, 50, 100} {
		var raw []point
		for c := range 40 {
			raw = append(raw, randomRaw(r, fmt.Sprintf("case%02d", c))...)
		}
		var res []int64
		for _, m := range []int64{1, 2, 3, 7, 10} {
			res = append(res, m*base)
		}
		rawExp, binExp := fmt.Sprintf("raw%d", base), fmt.Sprintf("bin%d", base)
		insertPoints(t, db, rawExp, raw)
		insertPoints(t, db, binExp, binned(raw, base))
		want, err := Peaks(db, PeaksOptions{Experiment: rawExp, ResolutionsMs: res})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Peaks(db, PeaksOptions{Experiment: binExp, ResolutionsMs: res})
		if err != nil {
			t.Fatal(err)
		}
		if runs := runsOf(raw); len(got.Rows) != runs*len(res) {
			t.Fatalf("base %d ms: %d rows, want %d runs × %d resolutions", base, len(got.Rows), runs, len(res))
		}
		if diff := cmp.Diff(want.Rows, got.Rows); diff != "" {
			t.Fatalf("base %d ms: binned peaks differ from raw (-raw +binned):\n%s", base, diff)
		}
		checkAgainstGo(t, db, rawExp, raw, res)
	}
}

// checkAgainstGo recomputes the peaks of raw by brute force in Go: aligned
// buckets by floor(t/res), and half-open windows [t, t+res) from each row.
func checkAgainstGo(t *testing.T, db *store.DB, exp string, raw []point, res []int64) {
	t.Helper()
	got, err := Peaks(db, PeaksOptions{Experiment: exp, ResolutionsMs: res, Sliding: true})
	if err != nil {
		t.Fatal(err)
	}
	byRun := map[string][]float64{}
	for _, p := range raw {
		byRun[p.run] = append(byRun[p.run], p.t)
	}
	var want [][]any
	for _, run := range slices.Sorted(maps.Keys(byRun)) {
		ts := byRun[run]
		slices.Sort(ts)
		for _, ms := range res {
			peak, at := alignedBrute(ts, ms)
			sp, sat := slidingBrute(ts, ms)
			want = append(want, []any{run, ms, peak, at, int64(len(ts)), sp, sat})
		}
	}
	if diff := cmp.Diff(want, got.Rows); diff != "" {
		t.Fatalf("%s: SQL peaks differ from Go (-go +sql):\n%s", exp, diff)
	}
}

func runsOf(pts []point) int {
	seen := map[string]bool{}
	for _, p := range pts {
		seen[p.run] = true
	}
	return len(seen)
}

func alignedBrute(ts []float64, res int64) (peak, at int64) {
	counts := map[int64]int64{}
	for _, x := range ts {
		counts[int64(math.Floor(x/float64(res)))]++
	}
	for k, n := range counts {
		if n > peak || n == peak && k*res < at {
			peak, at = n, k*res
		}
	}
	return peak, at
}

// slidingBrute takes ts sorted.
func slidingBrute(ts []float64, res int64) (int64, float64) {
	var best int64
	var at float64
	for i, x := range ts {
		var n int64
		for _, y := range ts[i:] {
			if y < x+float64(res) {
				n++
			}
		}
		if n > best {
			best, at = n, x
		}
	}
	return best, at
}
