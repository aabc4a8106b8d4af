package replay

import (
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/rewind-dev/rewind/internal/param"
)

// stats gathers what a live window's metric needs, row by row: the Go twin
// of side_windows for rewind watch. Latencies are kept only for a latency
// metric, rounded to the microsecond as the SQL reads them; a quantile is
// the nearest rank, the ceil(q n)-th smallest of n (at least the first),
// as DuckDB's quantile_disc computes it with a DECIMAL q.
type stats struct {
	metric string
	q      *big.Rat // the quantile; nil for mean and the counting metrics
	lat    bool     // keep latencies
	lats   []int64  // microseconds, one per request (quantiles)
	sum    big.Int  // microseconds × count (mean)
	n      int64    // requests with a latency
	weight int64    // the largest count of a row with a latency
}

// quantiles are the latency metrics read as a nearest-rank quantile.
var quantiles = map[string]*big.Rat{
	"p50": big.NewRat(50, 100), "p90": big.NewRat(90, 100), "p95": big.NewRat(95, 100),
	"p99": big.NewRat(99, 100), "p99.9": big.NewRat(999, 1000), "max": big.NewRat(1, 1),
}

func newStats(metric string) *stats {
	if metric == "" {
		metric = "ok_share"
	}
	return &stats{metric: metric, q: quantiles[metric], lat: quantiles[metric] != nil || metric == "mean"}
}

func (s *stats) reset() {
	s.lats, s.n, s.weight = s.lats[:0], 0, 0
	s.sum.SetInt64(0)
}

// add counts one row's latency.
func (s *stats) add(latencyMs float64, has bool, count int64) {
	if !s.lat || !has {
		return
	}
	us := int64(math.Round(latencyMs * 1000))
	s.n += count
	s.weight = max(s.weight, count)
	s.sum.Add(&s.sum, new(big.Int).Mul(big.NewInt(us), big.NewInt(count)))
	if s.q != nil {
		s.lats = append(s.lats, us)
	}
}

// value is the window's value, exact; nil for the counting metrics (the
// evaluator takes them from the counts) and for a window without a latency.
func (s *stats) value(requests int64, sizeMs float64) (*big.Rat, error) {
	switch {
	case s.metric == "throughput":
		if sizeMs <= 0 {
			return nil, param.Errorf("window", "metric throughput: requests per second need duration windows ({window} 10s)")
		}
		return new(big.Rat).SetFrac(big.NewInt(requests*1000000), big.NewInt(int64(math.Round(sizeMs*1000)))), nil
	case !s.lat || s.n == 0:
		return nil, nil
	case s.q == nil:
		return new(big.Rat).SetFrac(&s.sum, big.NewInt(s.n)), nil
	case s.weight > 1:
		return nil, fmt.Errorf("metric %s: latency quantiles need one row per request, and this log has rows that stand for several (count > 1); use mean", s.metric)
	}
	return big.NewRat(NearestRank(s.lats, s.q), 1), nil
}

// NearestRank is the ceil(q n)-th smallest of xs (at least the first); it
// sorts xs.
func NearestRank(xs []int64, q *big.Rat) int64 {
	slices.Sort(xs)
	n := big.NewInt(int64(len(xs)))
	r := new(big.Int).Mul(n, q.Num())
	r.Add(r, new(big.Int).Sub(q.Denom(), big.NewInt(1)))
	r.Quo(r, q.Denom())
	k := max(r.Int64(), 1)
	return xs[k-1]
}
