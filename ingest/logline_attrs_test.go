package ingest

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
