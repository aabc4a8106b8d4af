package analyze

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/sim/chaos"
)

// The SQL macro tag_hash is the chaos simulator's TagHash, bit for bit.
func TestTagHashMatchesGo(t *testing.T) {
	q := ingestedDB(t)
	rng := rand.New(rand.NewPCG(1, 2))
	seeds := []uint32{20260731, 31337, 0, 1, 1<<31 - 1, 1 << 31, 1<<32 - 1}
	for _, seed := range seeds {
		is := []int64{0, 1, 2, 199, 200, 399, 1<<31 - 2, 1<<31 - 1, 1<<32 - 1, 1 << 32, -1, -2}
		for k := 0; k < 200; k++ {
			is = append(is, rng.Int64N(1<<40))
		}
		var list []string
		for _, i := range is {
			list = append(list, fmt.Sprint(i))
		}
		res, err := SQL(q, fmt.Sprintf(`SELECT i, tag_hash(%d, i) FROM unnest([%s]::BIGINT[]) t(i) ORDER BY i`, seed, strings.Join(list, ",")))
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range res.Rows {
			i, got := row[0].(int64), row[1].(float64)
			if want := chaos.TagHash(seed, i); got != want {
				t.Errorf("tag_hash(%d, %d) = %v, TagHash = %v", seed, i, got, want)
			}
		}
	}
}

// The seed's three chaos tables, from the committed fixture.
func TestChaosSeedTables(t *testing.T) {
	q := ingestedDB(t, "../fixtures/chaos/gunluk.json")
	br, err := BlastRadius(q, BlastRadiusOptions{Planned: "tag_hash(20260731, req) < 0.05"})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "blast-radius", br, [][]any{{int64(11), int64(44), int64(200), 4.0, int64(52), int64(16), int64(400)}})
	fa, err := Falsification(q, FalsificationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "falsification", fa, [][]any{
		{0.0, 0.96, int64(4), int64(10), int64(7), int64(10), int64(2)},
		{0.05, 0.96, int64(4), int64(10), int64(7), int64(10), int64(2)},
		{0.1, 0.96, int64(0), int64(10), int64(4), int64(10), int64(6)},
		{0.2, 0.96, int64(0), int64(10), int64(2), int64(10), int64(8)},
	})
	sd, err := StopDamage(q, StopDamageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "stop-damage", sd, [][]any{
		{int64(1), int64(6), int64(8), int64(0), int64(44)},
		{int64(2), int64(9), int64(28), int64(20), int64(44)},
		{int64(3), int64(10), int64(44), int64(36), int64(44)},
		{int64(4), nil, int64(44), int64(36), int64(44)},
	})
}

func check(t *testing.T, name string, r *Result, want [][]any) {
	t.Helper()
	if diff := cmp.Diff(want, r.Rows); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}
