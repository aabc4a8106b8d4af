// Package jsfmt formats numbers the way the seed documents' JavaScript
// printed them, so rewind's output can carry the seeds' numbers digit for
// digit.
package jsfmt

import (
	"math"
	"math/big"
	"strconv"
)

// Fixed formats x with digits after the point as JavaScript's
// Number.prototype.toFixed does: from the exact binary value of x, with an
// exact half rounded away from zero. strconv rounds exact halves to even
// (0.125 → "0.12" where JavaScript prints "0.13").
func Fixed(x float64, digits int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) || digits < 0 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	if math.Abs(x) >= 1e21 {
		return strconv.FormatFloat(x, 'g', -1, 64) // JavaScript falls back to ToString here
	}
	sign := ""
	if x < 0 {
		sign, x = "-", -x
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits)), nil)
	r := new(big.Rat).SetFloat64(x)
	r.Mul(r, new(big.Rat).SetInt(scale)).Add(r, big.NewRat(1, 2))
	n := new(big.Int).Quo(r.Num(), r.Denom()) // floor, as r > 0
	return sign + new(big.Rat).SetFrac(n, scale).FloatString(digits)
}
