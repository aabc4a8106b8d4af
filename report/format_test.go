package report

import (
	"math"
	"math/big"
	"testing"
	"time"
)

func TestFormatValue(t *testing.T) {
	cases := []struct {
		in   Value
		want string
	}{
		{nil, "NULL"},
		{"a|b", "a|b"},
		{true, "true"},
		{int8(-3), "-3"},
		{uint64(18446744073709551615), "18446744073709551615"},
		{0.1 + 0.2, "0.3"},
		{float32(2.5), "2.5"},
		{1234567.8, "1234568"},
		{12.3456789, "12.3457"},
		{0.000012345678, "0.0000123457"},
		{1e22, "1e+22"},
		{-0.0, "0"},
		{100.0, "100"},
		{math.NaN(), "NaN"},
		{math.Inf(-1), "-Inf"},
		{big.NewInt(42), "42"},
		{[]byte{0xde, 0xad}, `\xdead`},
		{time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.FixedZone("x", 3600)), "2026-01-02 02:04:05.006Z"},
	}
	for _, c := range cases {
		if got := FormatValue(c.in); got != c.want {
			t.Errorf("FormatValue(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNumericColumns(t *testing.T) {
	tab := Table{
		Columns: []Column{{Name: "a"}, {Name: "b"}, {Name: "c"}},
		Rows:    [][]Value{{1, "x", nil}, {nil, 2.0, nil}},
	}
	got := numericColumns(tab)
	want := []bool{true, false, true} // a column of NULLs only is right-aligned
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("column %d numeric = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestSectionIDs(t *testing.T) {
	got := sectionIDs([]Section{{Title: "Blast radius"}, {Title: "Blast radius"}, {}, {ID: "x y", Title: "z"}})
	want := []string{"blast-radius", "blast-radius-2", "s3", "x-y"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("id %d = %q, want %q", i, got[i], want[i])
		}
	}
}
