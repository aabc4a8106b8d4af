package replay

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// baselineByWindow is Baseline as the plain sum, one rational addition per
// window, each value spelled out here rather than taken from Window.
func baselineByWindow(ws []Window, metric string) *big.Rat {
	sum, n := new(big.Rat), int64(0)
	for _, w := range ws {
		var v *big.Rat
		switch {
		case w.Value != nil:
			v = w.Value
		case w.Requests == 0:
		case metric == "ok_share":
			v = big.NewRat(w.OK, w.Requests)
		case metric == "error_rate":
			v = big.NewRat(w.Requests-w.OK, w.Requests)
		}
		if v != nil {
			sum.Add(sum, v)
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return sum.Quo(sum, big.NewRat(n, 1))
}

// Summing per denominator gives the plain sum's mean exactly: shares of
// windows of a few sizes, empty windows, and values (latencies in µs, means
// with any denominator, negative ones, and fractions past int64).
func TestBaselineEqualsPlainSum(t *testing.T) {
	r := rand.New(rand.NewPCG(20261201, 31))
	huge, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	for c := range 400 {
		ws := make([]Window, 1+r.IntN(300))
		sizes := []int64{40, 40, 40, 39, 1 + r.Int64N(1000), 0}
		for i := range ws {
			n := sizes[r.IntN(len(sizes))]
			ws[i] = Window{N: int64(i + 1), Requests: n}
			if n > 0 {
				ws[i].OK = r.Int64N(n + 1)
			}
			if c%2 == 1 && r.IntN(4) > 0 {
				switch r.IntN(4) {
				case 0:
					ws[i].Value = big.NewRat(r.Int64N(1e9), 1)
				case 1:
					ws[i].Value = big.NewRat(r.Int64N(1e12)-5e11, 1+r.Int64N(50))
				case 2:
					ws[i].Value = new(big.Rat).SetFrac(new(big.Int).Add(huge, big.NewInt(r.Int64N(1e6))), big.NewInt(1+r.Int64N(7)))
				default:
					ws[i].Value = new(big.Rat).SetFrac(big.NewInt(r.Int64N(1e6)), new(big.Int).Add(huge, big.NewInt(r.Int64N(9))))
				}
			}
		}
		for _, metric := range []string{"ok_share", "error_rate", "p95", "mean"} {
			want := baselineByWindow(ws, metric)
			got, err := Baseline(ws, metric)
			if want == nil {
				if err == nil || !strings.Contains(err.Error(), "no baseline") {
					t.Fatalf("case %d %s: got %v, %v; want no baseline", c, metric, got, err)
				}
				continue
			}
			if err != nil || got.Cmp(want) != 0 {
				t.Fatalf("case %d %s: got %v, %v; want %v", c, metric, got, err, want)
			}
		}
	}
}
