package engine

import (
	"context"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rewind-dev/rewind/internal/sparktest"
)

// sparkURL is the test cluster (sparktest.URL).
func sparkURL(t *testing.T) string { return sparktest.URL(t) }

// The literals read back on Spark as the values they were made from, and
// the identifier names the column.
func TestLiteralsOnSpark(t *testing.T) {
	ctx := context.Background()
	s, err := OpenSpark(ctx, sparkURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	strs := []string{"it's", `a\'b\\`, "", "ünï\tcode\n", `"quoted"`}
	floats := []float64{1.5, 1e21, -2.5e-300, 0.1, math.Inf(-1), math.Inf(1)}
	q := "SELECT "
	for i, v := range strs {
		q += String(v) + " AS " + Ident("s`"+string(rune('a'+i))) + ", "
	}
	for _, v := range floats {
		q += Double(v) + ", "
	}
	q += Int(-9007199254740993) + ", " + Double(math.NaN())
	tab, err := s.Reduce(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Release()
	rr := array.NewTableReader(tab, 0)
	defer rr.Release()
	if !rr.Next() {
		t.Fatal("no row")
	}
	rec := rr.RecordBatch()
	for i, v := range strs {
		if got := rec.Column(i).(*array.String).Value(0); got != v {
			t.Errorf("string %q read back as %q", v, got)
		}
		if name := rec.ColumnName(i); name != "s`"+string(rune('a'+i)) {
			t.Errorf("identifier read back as %q", name)
		}
	}
	for i, v := range floats {
		if got := rec.Column(len(strs) + i).(*array.Float64).Value(0); got != v {
			t.Errorf("double %v read back as %v", v, got)
		}
	}
	if got := rec.Column(len(strs) + len(floats)).(*array.Int64).Value(0); got != -9007199254740993 {
		t.Errorf("bigint read back as %d", got)
	}
	if got := rec.Column(len(strs) + len(floats) + 1).(*array.Float64).Value(0); !math.IsNaN(got) {
		t.Errorf("NaN read back as %v", got)
	}
}
