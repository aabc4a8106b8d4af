package analyze

import (
	"database/sql"
	"math"
	"math/rand/v2"
	"testing"
)

// streakWalk over blocks gives the stops and damages of a walk over the
// windows one by one (_streaks and stop_damage's definition: a streak
// counts valued windows since the last valued window not falsified;
// a k stops at the first window whose streak reaches it; the damage is
// every window's up to it), for random windows cut into blocks of 1 to 9:
// runs longer than a block, blocks without a value, blocks all falsified.
// The blocks are computed here as the engine's step computes them.
func TestStreakWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ks := []int64{1, 2, 3, 5, 8, 13}
	for trial := range 2000 {
		n := 1 + rng.IntN(60)
		type win struct {
			valued, falsified bool
			damage            int64
		}
		ws := make([]win, n)
		for i := range ws {
			ws[i] = win{rng.IntN(6) > 0, rng.IntN(4) > 0, int64(rng.IntN(3))}
		}
		// one by one
		want := map[int64][2]int64{}
		var streak, dmg int64
		for i, x := range ws {
			dmg += x.damage
			if x.valued {
				if x.falsified {
					streak++
				} else {
					streak = 0
				}
			}
			for _, k := range ks {
				if _, ok := want[k]; !ok && streak >= k {
					want[k] = [2]int64{int64(i + 1), dmg}
				}
			}
		}
		// in blocks
		size := 1 + rng.IntN(9)
		g := newStreakWalk("", ks)
		for lo := 0; lo < n; lo += size {
			hi := min(lo+size, n)
			b := streakBlockRow{at: make([]sql.NullInt64, 2*len(ks)+2*int(ks[len(ks)-1]-1))}
			var ord, cum, last int64
			broken := false
			for i := lo; i < hi; i++ {
				x := ws[i]
				cum += x.damage
				b.damage += x.damage
				if x.valued {
					ord++
					if !x.falsified {
						broken, last = true, ord
					}
				}
				s := ord - last
				for j, k := range ks {
					if s >= k && !b.at[2*j].Valid {
						b.at[2*j], b.at[2*j+1] = sql.NullInt64{Int64: int64(i + 1), Valid: true}, sql.NullInt64{Int64: cum, Valid: true}
					}
				}
				if !broken {
					b.lead = ord
					if x.valued && ord < ks[len(ks)-1] {
						at := 2*len(ks) + 2*int(ord-1)
						b.at[at], b.at[at+1] = sql.NullInt64{Int64: int64(i + 1), Valid: true}, sql.NullInt64{Int64: cum, Valid: true}
					}
				}
				b.trail = s
			}
			b.valued = ord
			g.block(b)
		}
		got := map[int64][2]int64{}
		var total int64
		for _, row := range g.rows() {
			total += row.damage
			if row.window == math.MaxInt64 {
				continue
			}
			for _, k := range ks {
				if _, ok := got[k]; !ok && row.streak >= k {
					got[k] = [2]int64{row.window, total}
				}
			}
		}
		if total != dmg {
			t.Fatalf("trial %d: total damage %d, want %d", trial, total, dmg)
		}
		for _, k := range ks {
			if got[k] != want[k] {
				t.Fatalf("trial %d (blocks of %d): k %d stops at window %d with damage %d, want %d with %d",
					trial, size, k, got[k][0], got[k][1], want[k][0], want[k][1])
			}
		}
	}
}
