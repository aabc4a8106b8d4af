package gcplb

import "testing"

// lineCounter gives lineAt's answers for offsets in order.
func TestLineCounter(t *testing.T) {
	data := []byte("[\n{\"a\":1},\n\n{\"b\":2}\n,{}\n]")
	c := lineCounter{data: data, line: 1}
	for off := int64(0); off <= int64(len(data))+2; off++ {
		if got, want := c.at(off), lineAt(data, off); got != want {
			t.Errorf("offset %d: line %d, want %d", off, got, want)
		}
	}
}
