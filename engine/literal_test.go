package engine

import (
	"math"
	"testing"
)

func TestLiterals(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{String("it's"), `'it\'s'`},
		{String(`a\'b`), `'a\\\'b'`},
		{String(""), "''"},
		{Ident("run"), "`run`"},
		{Ident("a`b"), "`a``b`"},
		{Int(-3), "-3L"},
		{Double(1.5), "1.5D"},
		{Double(1e21), "1e+21D"},
		{Double(math.Inf(-1)), "CAST('-Inf' AS DOUBLE)"},
		{Double(math.NaN()), "CAST('NaN' AS DOUBLE)"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}
