package analyze

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Kayenta's own vectors (analyze/testdata/judge/kayenta/README.md): the
// arrays of its MannWhitneySuite and ClassifierSuite, the expected values
// as they are printed there, compared to every printed digit.

type suite map[string]map[string][]float64

func loadSuite(t *testing.T, name string) suite {
	t.Helper()
	b, err := os.ReadFile("testdata/judge/kayenta/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var s suite
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// sameDigits reports whether got, written with as many significant digits
// as printed has, reads as printed does.
func sameDigits(printed string, got float64) bool {
	want, err := strconv.ParseFloat(printed, 64)
	if err != nil {
		return false
	}
	mant := strings.ToLower(strings.TrimLeft(printed, "+-"))
	mant, _, _ = strings.Cut(mant, "e")
	mant = strings.TrimLeft(strings.ReplaceAll(mant, ".", ""), "0")
	sig := max(len(mant), 1)
	return strconv.FormatFloat(got, 'e', sig-1, 64) == strconv.FormatFloat(want, 'e', sig-1, 64)
}

func checkDigits(t *testing.T, what, printed string, got float64) {
	t.Helper()
	if !sameDigits(printed, got) {
		t.Errorf("%s = %v, Kayenta's vector prints %s", what, got, printed)
	}
}

// rQnormTail is R's qnorm (Wichura's AS 241, as in R's nmath/qnorm.c) for
// the lower tail 1e-11 < p < 0.075, the branch every usual confidence
// level takes;
// R's own log is glibc's, rounded to nearest, which crLog is.
func rQnormTail(t *testing.T, p float64) float64 {
	if !(p < 0.075) {
		t.Fatalf("rQnormTail(%v): only the tail branch is here", p)
	}
	r := math.Sqrt(-crLog(p))
	if r > 5 {
		t.Fatalf("rQnormTail(%v): only r <= 5 is here", p)
	}
	r += -1.6
	val := (((((((r*7.7454501427834140764e-4+.0227238449892691845833)*r+.24178072517745061177)*r+1.27045825245236838258)*r+3.64784832476320460504)*r+5.7694972214606914055)*r+4.6303378461565452959)*r + 1.42343711074968357734) /
		(((((((r*1.05075007164441684324e-9+5.475938084995344946e-4)*r+.0151986665636164571966)*r+.14810397642748007459)*r+.68976733498510000455)*r+1.6763848301838038494)*r+2.05319162663775882187)*r + 1.)
	return -val
}

// rArith is R's wilcox.test arithmetic: qnorm, and no continuity
// correction for the estimate.
func rArith(t *testing.T) mwArith {
	return mwArith{quantile: func(p float64) float64 { return rQnormTail(t, p) }}
}

func TestKayentaWilcoxonDiff(t *testing.T) {
	a := loadSuite(t, "mannwhitney_suite.json")["Wilcoxon Diff Function"]
	for _, c := range []struct {
		mu      float64
		printed string
	}{{0, "-1.229416"}, {5, "-35.80606"}} {
		got, err := wilcoxonDiff(c.mu, 0, a["x"], a["y"], true)
		if err != nil {
			t.Fatal(err)
		}
		checkDigits(t, "wilcoxonDiff(mu="+strconv.FormatFloat(c.mu, 'g', -1, 64)+")", c.printed, got)
	}
	checkDigits(t, "zQuant(0.01)", "-2.326348", normQuantile(0.02/2))
}

// The vectors Kayenta's own arithmetic produced (commons-math's quantile,
// the corrected estimate): every printed digit.
func TestKayentaMannWhitney(t *testing.T) {
	s := loadSuite(t, "mannwhitney_suite.json")
	for _, c := range []struct {
		test, x, y        string
		conf              float64
		lower, upper, est string
	}{
		{"Mann-Whitney Confidence Interval & Estimate", "experimentData", "controlData", 0.95, "6.0", "39.0", "22.5"},
		{"Mann-Whitney Confidence Interval & Estimate: Problem Case", "experiment", "control", 0.98,
			"-1.4808028936386108E-5", "1.808255910873413E-5", "1.808255910873413E-5"},
	} {
		a := s[c.test]
		r, err := mannWhitney(a[c.x], a[c.y], c.conf)
		if err != nil {
			t.Fatalf("%s: %v", c.test, err)
		}
		checkDigits(t, c.test+": lower", c.lower, r.Lower)
		checkDigits(t, c.test+": upper", c.upper, r.Upper)
		checkDigits(t, c.test+": estimate", c.est, r.Estimate)
	}
}

// R's tie-out vectors: the same port with R's arithmetic gives R's interval
// to every printed digit (its estimate too, where the vector prints it);
// Kayenta's arithmetic stays within the suite's own tolerances (1e-6 for
// the ends, 1e-4 for the estimate), which is all Kayenta holds itself to.
func TestKayentaRTieOut(t *testing.T) {
	s := loadSuite(t, "mannwhitney_suite.json")
	for _, c := range []struct {
		test              string
		conf              float64
		lower, upper, est string
	}{
		{"Mann-Whitney Confidence Interval & Estimate: Tie out with R Version", 0.95,
			"-0.500002521696696", "-3.486287505871302E-5", "-0.4999393907180323"},
		{"Mann-Whitney Confidence Interval & Estimate: Tie out with R Version (Large)", 0.98,
			"-0.4999173250549087", "-6.912685789769486E-6", "-3.45044082729315E-5"},
	} {
		a := s[c.test]
		x, y := a["experiment"], a["control"]
		r, err := rArith(t).test(x, y, c.conf)
		if err != nil {
			t.Fatal(err)
		}
		checkDigits(t, c.test+": R lower", c.lower, r.Lower)
		checkDigits(t, c.test+": R upper", c.upper, r.Upper)
		checkDigits(t, c.test+": R estimate", c.est, r.Estimate)
		k, err := mannWhitney(x, y, c.conf)
		if err != nil {
			t.Fatal(err)
		}
		want := func(p string) float64 { f, _ := strconv.ParseFloat(p, 64); return f }
		if math.Abs(k.Lower-want(c.lower)) > 1e-6 || math.Abs(k.Upper-want(c.upper)) > 1e-6 || math.Abs(k.Estimate-want(c.est)) > 1e-4 {
			t.Errorf("%s: Kayenta's arithmetic gives %+v, beyond the suite's tolerances", c.test, k)
		}
	}
}

// The suite's intermediate values: the range of shifts, the statistic at
// its ends for both quantiles, the roots; R's arithmetic.
func TestKayentaIntermediate(t *testing.T) {
	a := loadSuite(t, "mannwhitney_suite.json")["Mann-Whitney Intermediate Values / Variables"]
	x, y := a["x"], a["y"]
	muMin, muMax := minOf(x)-maxOf(y), maxOf(x)-minOf(y)
	checkDigits(t, "muMin", "-3.124999999999986", muMin)
	checkDigits(t, "muMax", "5.555555555555557", muMax)
	conf := 0.95 // a variable: Go would fold 1 - 0.95 exactly, Java and R round it
	alpha := 1.0 - conf
	zq := -rQnormTail(t, alpha/2)
	// The vector prints 1.9599639845400536, one double below this one;
	// the 16 digits both share are checked, and the roots below, which
	// depend on every bit of zq, come out as printed.
	checkDigits(t, "zqLower", "1.959963984540054", zq)
	checkDigits(t, "zqLower (Kayenta)", "1.959963984540054", -normQuantile(alpha/2))
	for _, c := range []struct {
		what, printed string
		mu, zq        float64
	}{
		{"fLower1", "17.090968923762254", muMin, zq}, {"fUpper1", "-20.997687930433106", muMax, zq},
		{"fLower2", "21.01089689284236", muMin, -zq}, {"fUpper2", "-17.077759961353", muMax, -zq},
	} {
		got, err := wilcoxonDiff(c.mu, c.zq, x, y, true)
		if err != nil {
			t.Fatal(err)
		}
		checkDigits(t, c.what, c.printed, got)
	}
	lo, err := mwRoot(x, y, muMin, muMax, zq)
	hi, err2 := mwRoot(x, y, muMin, muMax, -zq)
	k, err3 := mannWhitney(x, y, conf)
	if err != nil || err2 != nil || err3 != nil {
		t.Fatal(err, err2, err3)
	}
	checkDigits(t, "ciLower", "3.521755377702165E-5", lo)
	checkDigits(t, "ciUpper", "2.02456461662334E-5", hi)
	checkDigits(t, "estimate (Kayenta's, corrected)", "2.6279243045155653E-5", k.Estimate)
}
