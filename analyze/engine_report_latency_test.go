package analyze

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rewind-dev/rewind/store"
)

// quantileCont over the values at the ranks ReportLatency picks (ordered
// by latencyKey) is bit for bit DuckDB's own quantile_cont, over random
// groups: n = 1 and 2, ties, zeros and negative values, tiny and large
// magnitudes, and q · (n - 1) whole (q = 0.5 and 0.25 over odd n, q = 0.95
// over n = 21 and 101); and latencyKey orders as the doubles do and
// latencyOfKey inverts it.
func TestQuantileContPicks(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, "", store.Options{Mode: store.Memory})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(36, 4))
	value := func(kind int) float64 {
		switch kind {
		case 0: // ties
			return float64(rng.IntN(4)) * 0.1
		case 1: // ns latencies as Vegeta's, in ms
			return float64(rng.IntN(5_000_000_000)) / 1e6
		case 2: // any magnitude, either sign, zeros
			if rng.IntN(10) == 0 {
				return 0
			}
			x := math.Ldexp(rng.Float64()+0.5, rng.IntN(200)-100)
			if rng.IntN(3) == 0 {
				x = -x
			}
			return x
		default: // a rank's neighbours close together
			return 100 + float64(rng.IntN(50))*math.Pow(2, -45)
		}
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE v (g INTEGER, x DOUBLE)`); err != nil {
		t.Fatal(err)
	}
	groups := map[int][]float64{}
	sizes := []int{1, 2, 3, 5, 21, 101, 1000}
	for g := range 400 {
		n := sizes[g%len(sizes)]
		if g >= 2*len(sizes) {
			n = 1 + rng.IntN(60)
		}
		kind := g % 4
		for range n {
			x := value(kind)
			groups[g] = append(groups[g], x)
			if _, err := db.ExecContext(ctx, `INSERT INTO v VALUES (?, ?)`, g, x); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE picks (g INTEGER, q DOUBLE, n BIGINT, lo DOUBLE, hi DOUBLE)`); err != nil {
		t.Fatal(err)
	}
	qs := []float64{0.5, 0.25, 0.9, 0.95, 0.99, 0.999}
	for g, xs := range groups {
		s := slices.Clone(xs)
		slices.SortFunc(s, func(a, b float64) int { return cmp.Compare(latencyKey(a), latencyKey(b)) })
		for i := range s {
			if i > 0 && s[i-1] > s[i] {
				t.Fatalf("group %d: latencyKey orders %v before %v", g, s[i-1], s[i])
			}
			if k := latencyKey(s[i]); latencyOfKey(k) != s[i] {
				t.Fatalf("latencyOfKey(latencyKey(%v)) = %v", s[i], latencyOfKey(k))
			}
		}
		n := int64(len(s))
		for _, q := range qs {
			rn := float64(n-1) * q
			lo, hi := s[int64(math.Floor(rn))], s[int64(math.Ceil(rn))]
			if _, err := db.ExecContext(ctx, `INSERT INTO picks VALUES (?, ?, ?, ?, ?)`, g, q, n, lo, hi); err != nil {
				t.Fatal(err)
			}
		}
	}
	compared := 0
	for _, q := range qs {
		rows, err := db.QueryContext(ctx, fmt.Sprintf(`SELECT p.g, l.want, %s AS got
			FROM picks p JOIN (SELECT g, quantile_cont(x, %v) AS want FROM v GROUP BY g) l USING (g) WHERE p.q = ?`,
			quantileCont("p.lo", "p.hi", "p.n", q), q), q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var g int
			var want, got float64
			if err := rows.Scan(&g, &want, &got); err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(want) != math.Float64bits(got) {
				t.Errorf("group %d (%d values), q %v: quantile_cont %v, from the picks %v", g, len(groups[g]), q, want, got)
			}
			compared++
		}
		rows.Close()
	}
	if compared != len(groups)*len(qs) {
		t.Errorf("compared %d quantiles, want %d", compared, len(groups)*len(qs))
	}
}
