package analyze

import (
	"math"
	"math/big"
)

// normQuantile is the standard normal quantile as Kayenta gets it:
// commons-math 3.6.1's NormalDistribution(0, 1).inverseCumulativeProbability,
// which is sqrt(2) · erfinv(2p - 1) with Giles' double-precision erfinv.
// Its last digits differ from R's qnorm (Wichura's AS 241) and from Go's
// math.Erfinv: for p = 0.025 the three give ...054, ...0536 and ...0534.
func normQuantile(p float64) float64 {
	return math.Sqrt2 * erfInv(2*p-1)
}

// erfInv is M. Giles, "Approximating the erfinv function", GPU Computing
// Gems Jade Edition (2011), double precision: a polynomial in
// w = -log((1-x)(1+x)) on three ranges, evaluated by Horner's rule.
func erfInv(x float64) float64 {
	w := -crLog(float64((1.0 - x) * (1.0 + x)))
	var p float64
	switch {
	case w < 6.25:
		p = horner(gilesCentral, w-3.125)
	case w < 16.0:
		p = horner(gilesTail, math.Sqrt(w)-3.25)
	case !math.IsInf(w, 0):
		p = horner(gilesFar, math.Sqrt(w)-5.0)
	default:
		p = math.Inf(1) // x = ±1: the far polynomial would give -Inf
	}
	return p * x
}

// horner evaluates c[0]·w^(n-1) + … + c[n-1], each step p = c + p·w
// rounded as Java rounds it (no fused multiply-add).
func horner(c []float64, w float64) float64 {
	p := c[0]
	for _, k := range c[1:] {
		p = k + float64(p*w)
	}
	return p
}

// Giles' coefficients, highest power first.
var (
	gilesCentral = []float64{
		-3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
		1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
		6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
		2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
		1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
		4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
		0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
		0.24015818242558961693, 1.6536545626831027356,
	}
	gilesTail = []float64{
		2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
		1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
		2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
		6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
		0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
		-0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
		3.0838856104922207635,
	}
	gilesFar = []float64{
		-2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
		-3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
		2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
		-9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
		7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
		1.0103004648645343977, 4.8499064014085844221,
	}
)

// crLog is the natural logarithm rounded to nearest, as Java's Math.log
// and glibc's log give it (Go's math.Log may be one ulp off, which moves a
// quantile's last digit and so the solver's iterates): ln(m·2^e) =
// e·ln 2 + 2·atanh((m-1)/(m+1)), summed in 160-bit floats.
func crLog(v float64) float64 {
	if !(v > 0) || math.IsInf(v, 0) {
		return math.Log(v)
	}
	frac, exp := math.Frexp(v) // v = frac · 2^exp, frac in [0.5, 1)
	const prec = 160
	m := new(big.Float).SetPrec(prec).SetFloat64(frac)
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	s := new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).Sub(m, one), new(big.Float).SetPrec(prec).Add(m, one))
	s2 := new(big.Float).SetPrec(prec).Mul(s, s)
	sum := new(big.Float).SetPrec(prec)
	term := new(big.Float).SetPrec(prec).Set(s)
	for k := int64(0); k < 80; k++ { // |s| ≤ 1/3: 80 terms pass 160 bits
		sum.Add(sum, new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetPrec(prec).SetInt64(2*k+1)))
		term.Mul(term, s2)
	}
	sum.Mul(sum, new(big.Float).SetPrec(prec).SetInt64(2))
	ln2, _ := new(big.Float).SetPrec(prec).SetString("0.693147180559945309417232121458176568075500134360255254120680009493393621969694715605863326996418687542")
	sum.Add(sum, ln2.Mul(ln2, new(big.Float).SetPrec(prec).SetInt64(int64(exp))))
	f, _ := sum.Float64()
	return f
}
