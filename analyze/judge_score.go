package analyze

import (
	"math"
	"math/big"
	"sort"
	"strconv"
)

// Kayenta's scoring: ScoringHelper, WeightedSumScorer and
// ThresholdScoreClassifier (docs/judge.md).

// judgedMetric is what the scorer reads of a metric's result.
type judgedMetric struct {
	Name     string
	Groups   []string
	Label    string
	Reason   string
	Critical bool
	Muted    bool
}

// groupScore is one group's share of Pass among its metrics that have a
// verdict (High, Low, Pass, NodataFailMetric), in percent.
type groupScore struct {
	Name    string
	Score   float64
	NoData  bool // no metric with a verdict: counts as 100 in the summary
	Metrics int
}

// judgeScore is the summary: the weighted score, rounded to 2 decimals,
// and its class.
type judgeScore struct {
	Groups         []groupScore
	Score          float64
	Classification string // Pass, Marginal or Fail
	Reason         string
}

// nodataThreshold: at or above this share of Nodata metrics, in percent,
// the canary fails.
const nodataThreshold = 50

// scoreMetrics scores the metrics that are not muted. Weights are percent
// per group, as given (Kayenta does not normalise them); the groups without
// one share what remains of 100.
func scoreMetrics(all []judgedMetric, weights map[string]float64, pass, marginal float64) judgeScore {
	var results []judgedMetric
	for _, m := range all {
		if !m.Muted {
			results = append(results, m)
		}
	}
	s := judgeScore{Groups: groupScores(results)}
	switch {
	case firstCritical(results) != nil:
		s.Reason = "Canary Failed: " + firstCritical(results).Reason
	case tooManyNodata(results):
		s.Reason = "Canary Failed: " + strconv.Itoa(nodataThreshold) + "% or more metrics returned NODATA"
	default:
		s.Score = summaryScore(s.Groups, weights)
	}
	switch {
	case s.Score >= pass:
		s.Classification = "Pass"
	case s.Score >= marginal:
		s.Classification = "Marginal"
	default:
		s.Classification = "Fail"
	}
	return s
}

// groupScores, in group-name order (Kayenta's map has none).
func groupScores(results []judgedMetric) []groupScore {
	labels := map[string][]string{}
	for _, m := range results {
		for _, g := range m.Groups {
			labels[g] = append(labels[g], m.Label)
		}
	}
	names := make([]string, 0, len(labels))
	for g := range labels {
		names = append(names, g)
	}
	sort.Strings(names)
	out := make([]groupScore, 0, len(names))
	for _, g := range names {
		var pass, total int
		for _, l := range labels[g] {
			switch l {
			case labelPass:
				pass++
				total++
			case labelHigh, labelLow, labelNodataMF:
				total++
			}
		}
		gs := groupScore{Name: g, NoData: total == 0, Metrics: len(labels[g])}
		if total > 0 {
			gs.Score = float64(pass) / float64(total) * 100
		}
		out = append(out, gs)
	}
	return out
}

func summaryScore(groups []groupScore, weights map[string]float64) float64 {
	var weightSum float64
	for _, w := range sortedWeights(weights) {
		weightSum += w
	}
	unweighted := 0
	for _, g := range groups {
		if _, ok := weights[g.Name]; !ok {
			unweighted++
		}
	}
	calculated := 0.0
	if unweighted > 0 {
		calculated = (100 - weightSum) / float64(unweighted)
	}
	var sum float64
	for _, g := range groups {
		score := g.Score
		if g.NoData {
			score = 100
		}
		w, ok := weights[g.Name]
		if !ok {
			w = calculated
		}
		sum += score * (w / 100)
	}
	return roundHalfUp(sum, 2)
}

func sortedWeights(weights map[string]float64) []float64 {
	names := make([]string, 0, len(weights))
	for n := range weights {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]float64, len(names))
	for i, n := range names {
		out[i] = weights[n]
	}
	return out
}

func firstCritical(results []judgedMetric) *judgedMetric {
	for i, m := range results {
		if m.Critical && m.Label != labelPass {
			return &results[i]
		}
	}
	return nil
}

func tooManyNodata(results []judgedMetric) bool {
	n := 0
	for _, m := range results {
		if m.Label == labelNodata {
			n++
		}
	}
	return float64(n)/float64(len(results))*100 >= nodataThreshold
}

// roundHalfUp is commons-math's Precision.round(x, scale): the decimal
// that Double.toString prints, rounded half away from zero.
func roundHalfUp(x float64, scale int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	r.Mul(r, p)
	num, den := new(big.Int).Abs(r.Num()), r.Denom()
	// floor(|r| + 1/2)
	q := new(big.Int).Quo(new(big.Int).Add(new(big.Int).Mul(num, big.NewInt(2)), den), new(big.Int).Mul(den, big.NewInt(2)))
	if r.Sign() < 0 {
		q.Neg(q)
	}
	f, _ := new(big.Rat).SetFrac(q, p.Num()).Float64()
	return f
}
