package analyze

import (
	"math"
	"slices"
)

// Real counts are rarely as tight as a binomial or a Poisson law says: a
// load generator's bursts, a retry storm, a client's batches all spread
// them further. A cost that takes them for exact finds a change in every
// wobble, so each count series' deviance is divided by its dispersion φ
// (the quasi-likelihood of McCullagh and Nelder, Generalized Linear Models,
// 2nd ed., 1989, ch. 9), estimated robustly from neighbouring intervals so
// that the changes themselves do not inflate it: d_k is the difference of
// two neighbours standardised by the variance the law gives them at their
// pooled rate (Var d_k = φ), and φ = (1.4826 · MAD(d))²; when most d are 0
// (a rare error, most intervals without one) the MAD is 0 and φ is the mean
// of d² instead; 1 when that is 0 too. φ may be below 1: a closed-loop load
// is steadier than a Poisson law, and a change of its rate shows sooner.
// Doubling every count doubles both the deviance and φ, so the points stay
// where they were (TestChangesDoubledCounts).

// mad is the median absolute deviation from the median; 0 for no values.
func mad(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	m := median(xs)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - m)
	}
	return median(dev)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// dispersionOf is (1.4826 · MAD(d))², else the mean of d², else 1.
func dispersionOf(d []float64) float64 {
	if phi := math.Pow(1.4826*mad(d), 2); phi > 0 {
		return phi
	}
	var ss float64
	for _, x := range d {
		ss += x * x
	}
	if ss > 0 {
		return ss / float64(len(d))
	}
	return 1
}

// binomialDispersion: d_k = (e_{k+1}/n_{k+1} − e_k/n_k) over
// √(p(1 − p)(1/n_k + 1/n_{k+1})), p the pair's pooled share; a pair
// without a judged request is skipped, one whose p is 0 or 1 gives 0.
func binomialDispersion(errs, judged []int64) float64 {
	var d []float64
	for k := 0; k+1 < len(errs); k++ {
		n1, n2 := float64(judged[k]), float64(judged[k+1])
		if n1 == 0 || n2 == 0 {
			continue
		}
		e1, e2 := float64(errs[k]), float64(errs[k+1])
		p := (e1 + e2) / (n1 + n2)
		if p == 0 || p == 1 {
			d = append(d, 0)
			continue
		}
		d = append(d, (e2/n2-e1/n1)/math.Sqrt(p*(1-p)*(1/n1+1/n2)))
	}
	return dispersionOf(d)
}

// poissonDispersion: d_k = (x_{k+1} − x_k) / √(x_k + x_{k+1}); 0 for two
// empty intervals.
func poissonDispersion(xs []int64) float64 {
	var d []float64
	for k := 0; k+1 < len(xs); k++ {
		a, b := float64(xs[k]), float64(xs[k+1])
		if a+b == 0 {
			d = append(d, 0)
			continue
		}
		d = append(d, (b-a)/math.Sqrt(a+b))
	}
	return dispersionOf(d)
}
