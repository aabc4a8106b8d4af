package analyze

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/rewind-dev/rewind/engine"
)

// The exact arithmetic of the sweep judged on the engine (engine_sweep.go):
// each group's baseline from step 1's rows, and step 2's literals, bounded
// in big.Int below judgeLimit before they are sent.

// baseline is one group's control windows with a value, as
// _judged_windows's b: w windows, l the lcm of their dens, sl the sum of
// num · l / den; abs is that sum over |num| (bounds the partial sums).
type baseline struct {
	gkey         string
	w, l, sl, ab *big.Int
}

// baselines reads step 1 per group.
func (r *Remote) baselines() ([]baseline, error) {
	rows, err := r.Querier().Query(`SELECT gkey, den::VARCHAR, n, s::VARCHAR, s_abs::VARCHAR FROM _remote_sweep_base ORDER BY gkey, den`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []baseline
	type part struct{ den, s, abs *big.Int }
	var parts []part
	flush := func() {
		b := &out[len(out)-1]
		for _, p := range parts {
			b.l = lcm(b.l, p.den)
		}
		for _, p := range parts {
			q := new(big.Int).Quo(b.l, p.den)
			b.sl.Add(b.sl, new(big.Int).Mul(p.s, q))
			b.ab.Add(b.ab, new(big.Int).Mul(p.abs, q))
		}
		parts = parts[:0]
	}
	for rows.Next() {
		var gkey, den, s, abs string
		var n int64
		if err := rows.Scan(&gkey, &den, &n, &s, &abs); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].gkey != gkey {
			if len(out) > 0 {
				flush()
			}
			out = append(out, baseline{gkey: gkey, w: new(big.Int), l: big.NewInt(1), sl: new(big.Int), ab: new(big.Int)})
		}
		out[len(out)-1].w.Add(out[len(out)-1].w, big.NewInt(n))
		parts = append(parts, part{bigOf(den), bigOf(s), bigOf(abs)})
	}
	if len(out) > 0 {
		flush()
	}
	return out, rows.Err()
}

func bigOf(s string) *big.Int {
	n, _ := new(big.Int).SetString(s, 10)
	return n
}

func lcm(a, b *big.Int) *big.Int {
	g := new(big.Int).GCD(nil, nil, a, b)
	return new(big.Int).Mul(a, new(big.Int).Quo(b, g))
}

// judgeLits are step 2's literals: th, every threshold with the judging of
// a group without a baseline (w 0, l 1, sl 0; used only where f = 0), and
// tg, per group with a baseline and threshold.
type judgeLits struct{ th, tg string }

// judgeLiterals bounds and writes the literals; false when a bound trips
// or they are too many.
func judgeLiterals(bases []baseline, fa [][2]*big.Int) (judgeLits, bool) {
	if len(bases)*len(fa) > judgeMaxLiterals {
		return judgeLits{}, false
	}
	lim := judgeLimit
	below := func(xs ...*big.Int) bool {
		for _, x := range xs {
			if new(big.Int).Abs(x).Cmp(lim) >= 0 {
				return false
			}
		}
		return true
	}
	// k, c and the bounds of |num| and den for one group and threshold
	judge := func(w, l, sl, f, a *big.Int) ([]string, bool) {
		wl := new(big.Int).Mul(w, l)
		if w.Sign() == 0 {
			wl = new(big.Int).Set(l)
		}
		k := new(big.Int).Mul(wl, big.NewInt(1000000))
		fsl, awl := new(big.Int).Mul(f, sl), new(big.Int).Mul(a, wl)
		c := new(big.Int).Add(fsl, awl)
		if !below(k, fsl, awl, c) {
			return nil, false
		}
		top := new(big.Int).Sub(lim, big.NewInt(1))
		nmax, dmax := new(big.Int).Quo(top, k), decMax
		if c.Sign() != 0 {
			dmax = new(big.Int).Quo(top, new(big.Int).Abs(c))
		}
		return []string{decLit(k), decLit(c), decLit(nmax), decLit(dmax)}, true
	}
	var th, tg []string
	zero, one := new(big.Int), big.NewInt(1)
	for i, x := range fa {
		lits, ok := []string{decLit(zero), decLit(zero), decLit(zero), decLit(zero)}, true
		if x[0].Sign() == 0 {
			if lits, ok = judge(zero, one, zero, x[0], x[1]); !ok {
				return judgeLits{}, false
			}
		}
		th = append(th, fmt.Sprintf("(%s, %v, %s)", engine.Int(int64(i+1)), x[0].Sign() == 0, strings.Join(lits, ", ")))
	}
	for _, b := range bases {
		if !below(b.l, b.sl, b.ab) {
			return judgeLits{}, false
		}
		for i, x := range fa {
			lits, ok := judge(b.w, b.l, b.sl, x[0], x[1])
			if !ok {
				return judgeLits{}, false
			}
			tg = append(tg, fmt.Sprintf("(%s, %s, %s)", engine.String(b.gkey), engine.Int(int64(i+1)), strings.Join(lits, ", ")))
		}
	}
	out := judgeLits{th: "SELECT * FROM VALUES " + strings.Join(th, ", ") + " AS th(i, f0, k, c, nmax, dmax)"}
	if len(tg) == 0 {
		z := decLit(zero)
		tg = []string{fmt.Sprintf("(CAST(NULL AS STRING), 0L, %s, %s, %s, %s)", z, z, z, z)}
		out.tg = "SELECT * FROM VALUES " + tg[0] + " AS tg(gkey, i, k, c, nmax, dmax) WHERE false"
	} else {
		out.tg = "SELECT * FROM VALUES " + strings.Join(tg, ", ") + " AS tg(gkey, i, k, c, nmax, dmax)"
	}
	return out, true
}

// decLit is n as a Spark DECIMAL(38,0) literal.
func decLit(n *big.Int) string { return "CAST('" + n.String() + "' AS DECIMAL(38,0))" }
