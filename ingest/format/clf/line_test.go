package clf

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"
)

// attrList.json past its insertion-sort size gives what a map gives: keys
// sorted, a key given twice keeping its last value (the sort is stable).
func TestAttrListManyFields(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for _, n := range []int{3, 16, 17, 5000} {
		var a attrList
		want := map[string]string{}
		for i := range n {
			k := fmt.Sprintf("k%d", rng.Intn(n/2+1))
			v := fmt.Sprint(i)
			a.add(k, v)
			want[k] = v
		}
		w, _ := json.Marshal(want)
		if got := a.json(); got != string(w) {
			t.Errorf("%d fields: %.200s, want %.200s", n, got, w)
		}
	}
}

// BenchmarkAttrListJSON: one CLF line's 250,000 trailing k=v fields (the
// insertion sort it replaced took 144 s on a line of them).
func BenchmarkAttrListJSON(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	kv := make([]kvPair, 250_000)
	for i := range kv {
		kv[i] = kvPair{fmt.Sprintf("k%07d", rng.Intn(1e7)), "v"}
	}
	var a attrList
	for b.Loop() {
		a.kv = append(a.kv[:0], kv...)
		_ = a.json()
	}
}

// One attrList reused line after line (it keeps the last line's order of
// keys) writes what a fresh one writes for each line: lines repeating the
// last one's keys, reordering them, repeating a key, dropping one.
func TestAttrListReusedOrder(t *testing.T) {
	r := rand.New(rand.NewSource(20261206))
	keys := []string{"b", "a", "path", "method", "a", "z"}
	var reused attrList
	var last []string
	for line := 0; line < 2000; line++ {
		ks := last
		if line == 0 || r.Intn(3) == 0 {
			ks = nil
			for range 1 + r.Intn(6) {
				ks = append(ks, keys[r.Intn(len(keys))])
			}
		}
		last = ks
		var fresh attrList
		reused.reset()
		for _, k := range ks {
			v := fmt.Sprint(r.Intn(100))
			reused.add(k, v)
			fresh.add(k, v)
		}
		if got, want := reused.json(), fresh.json(); got != want {
			t.Fatalf("line %d, keys %v: %s, want %s", line, ks, got, want)
		}
	}
}
