package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/store"
)

// genLog is one generated experiment: its log lines and how to replay it.
type genLog struct {
	name   string
	window hypothesis.Window
	margin *big.Rat
	lines  []map[string]any
	// hyp and bound, for the metric property test.
	hyp   hypothesis.Hypothesis
	bound *hypothesis.Bound
}

// tieSizes divide 10^6, so every share ok/n of such a window, and every
// margin j/n, is a whole number of millionths: ties at the threshold are
// exact in both Go and SQL.
var tieSizes = []int{1, 2, 4, 5, 8, 10, 16, 20, 25}

// generate makes a random log. Half the logs are built for ties: every
// control window has the same share a/n (so the baseline is exactly a/n),
// the margin is j/n, and experiment windows sit at, just below or above
// a/n - j/n. The others have random outcomes, count or duration windows,
// pre-binned rows (count > 1) and a short last window.
func generate(rng *rand.Rand, i int) genLog {
	g := genLog{name: fmt.Sprintf("p%03d", i)}
	if i%2 == 0 {
		return g.ties(rng)
	}
	return g.random(rng)
}

func (g genLog) ties(rng *rand.Rand) genLog {
	n := tieSizes[rng.IntN(len(tieSizes))]
	a := rng.IntN(n + 1)
	j := rng.IntN(a + 1)
	g.window = hypothesis.Window{N: int64(n)}
	g.margin = big.NewRat(int64(j), int64(n))
	var ctl, exp []map[string]any
	for range 1 + rng.IntN(5) {
		ctl = append(ctl, g.windowRows(rng, "control", n, a)...)
	}
	for range 1 + rng.IntN(12) {
		ok := min(max(a-j+rng.IntN(3)-1, 0), n) // at, one below or one above the threshold
		exp = append(exp, g.windowRows(rng, "experiment", n, ok)...)
	}
	exp = append(exp, g.windowRows(rng, "experiment", n, n)[:rng.IntN(n)]...) // short last window
	g.lines = interleave(rng, ctl, exp)
	return g
}

// windowRows is one window of n rows, ok of them ok, in random order.
func (g genLog) windowRows(rng *rand.Rand, role string, n, ok int) []map[string]any {
	rows := make([]map[string]any, n)
	for i, p := range rng.Perm(n) {
		rows[i] = g.row(rng, role, p < ok)
	}
	return rows
}

func (g genLog) row(rng *rand.Rand, role string, ok bool) map[string]any {
	out := "error"
	if ok {
		out = "ok"
	}
	return map[string]any{"experiment": g.name, "run": role + "-run", "role": role, "outcome": out, "tagged": rng.IntN(3) == 0}
}

func (g genLog) random(rng *rand.Rand) genLog {
	margins := []string{"0", "0.05", "0.10", "0.2", "0.125", "0.333333"}
	g.margin, _ = ParseMargin(margins[rng.IntN(len(margins))])
	if rng.IntN(2) == 0 {
		g.window = hypothesis.Window{N: int64(1 + rng.IntN(12))}
	} else {
		g.window = hypothesis.Window{Ms: float64([]int{50, 100, 250}[rng.IntN(3)])}
	}
	pOK := rng.Float64()
	var ctl, exp []map[string]any
	for _, role := range []string{"control", "experiment"} {
		t := 0.0
		for range 1 + rng.IntN(80) {
			r := g.row(rng, role, rng.Float64() < pOK)
			t += float64(rng.IntN(40)) * float64(1+9*rng.IntN(2)) // gaps leave empty duration windows
			r["t_ms"] = t
			if rng.IntN(5) == 0 {
				r["count"] = 1 + rng.IntN(4) // a pre-binned row
			}
			if role == "control" {
				ctl = append(ctl, r)
			} else {
				exp = append(exp, r)
			}
		}
	}
	g.lines = interleave(rng, ctl, exp)
	return g
}

// interleave merges two runs in random order, keeping each run's order.
func interleave(rng *rand.Rand, a, b []map[string]any) []map[string]any {
	out := make([]map[string]any, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || (len(a) > 0 && rng.IntN(2) == 0) {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}

func (g genLog) write(dir string) (string, error) {
	var b strings.Builder
	for _, l := range g.lines {
		j, err := json.Marshal(l)
		if err != nil {
			return "", err
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, g.name+".ndjson")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// ingestLogs writes the logs and ingests them into a fresh database; it
// returns the database and the files, by log.
func ingestLogs(t *testing.T, logs []genLog) (store.Handle, []string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "p.duckdb"), store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var paths []string
	for _, g := range logs {
		p, err := g.write(dir)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	if _, err := ingest.Files(ctx, db, ingest.Options{}, paths); err != nil {
		t.Fatal(err)
	}
	return db, paths
}
