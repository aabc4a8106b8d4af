package analyze

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
)

// metricSeries is one metric of a run, ready to segment: its cost over
// points off, off+1, ... of the run's intervals, and its value over points
// [t, s) of its own.
type metricSeries struct {
	name, unit string
	off        int
	cost       segCost
	value      func(t, s int) float64
}

// metrics builds the run's series: the error rate (errors among judged
// requests, binomial), each latency quantile (requests slower than the
// run's quantile among the timed ones, binomial) and the throughput
// (requests per interval, Poisson, without the run's first and last
// intervals, which the run only partly covers). A metric the run has no
// data for is left out.
func (s *runSeries) metrics(ms int64) []metricSeries {
	var out []metricSeries
	if sum(s.judged) > 0 {
		out = append(out, metricSeries{name: "error_rate", unit: "share",
			cost: newBinomialCost(s.errors, s.judged, binomialDispersion(s.errors, s.judged)),
			value: func(t, u int) float64 {
				return float64(sum(s.errors[t:u])) / float64(sum(s.judged[t:u]))
			}})
	}
	if sum(s.timed) > 0 {
		for i, name := range []string{"p50", "p95", "p99"} {
			lat := s.lat[i]
			out = append(out, metricSeries{name: name, unit: "ms",
				cost:  newBinomialCost(s.over[i], s.timed, binomialDispersion(s.over[i], s.timed)),
				value: func(t, u int) float64 { return medianOf(lat[t:u]) }})
		}
	}
	if n := len(s.requests); n > 2 {
		inner := s.requests[1 : n-1]
		out = append(out, metricSeries{name: "throughput", unit: "requests/s", off: 1,
			cost: newPoissonCost(inner, poissonDispersion(inner)),
			value: func(t, u int) float64 {
				return float64(sum(inner[t:u])) * 1000 / (float64(u-t) * float64(ms))
			}})
	}
	return out
}

// segmentAll segments every metric of the run: its rows, or a note when
// the run is too short or too sparse to tell.
func (s *runSeries) segmentAll(o ChangesOptions, iv interval) ([][]any, *param.Error) {
	n := len(s.requests)
	if n < 2*o.MinSegment+2 {
		return nil, param.Textf("%srun %s: %s of %s, too short to tell a change (a change needs two segments of {min-segment} %d intervals); give a shorter {interval}",
			s.gtext, s.run, hypothesis.Plural(int64(n), "interval"), ResolutionName(iv.ms), o.MinSegment)
	}
	if mean := float64(sum(s.requests)) / float64(n); mean < changesMinMean {
		return nil, param.Textf("%srun %s: %.1f requests an interval of %s, too sparse to tell a change (at least %d needed); give a longer {interval}",
			s.gtext, s.run, mean, ResolutionName(iv.ms), changesMinMean)
	}
	ms := s.metrics(iv.ms)
	pens := make([]float64, len(ms))
	ends := make([][]int, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms { // the series are independent: one goroutine each
		pens[i] = o.Penalty
		if pens[i] == 0 {
			pens[i] = DefaultChangesPenalty(m.cost.len())
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ends[i] = mergeSmall(pelt(m.cost, pens[i], o.MinSegment), m.value, o.MinChange)
		}()
	}
	wg.Wait()
	var rows [][]any
	for i, m := range ms {
		rows = append(rows, s.segmentRows(m, iv, ends[i], pens[i])...)
	}
	return rows, nil
}

// segmentRows are the rows of one metric's segments.
func (s *runSeries) segmentRows(m metricSeries, iv interval, ends []int, pen float64) [][]any {
	var rows [][]any
	start := 0
	for j, end := range ends {
		row := s.segmentRow(m, iv, j, start, end)
		row = append(row, m.unit, orNil(m.value(start, end)))
		if j == 0 {
			row = append(row, nil, nil, nil, nil)
		} else {
			prevStart := 0
			if j > 1 {
				prevStart = ends[j-2]
			}
			before, v := m.value(prevStart, start), m.value(start, end)
			lr := m.cost.cost(prevStart, end) - m.cost.cost(prevStart, start) - m.cost.cost(start, end)
			row = append(row, orNil(before), orNil(v-before), direction(v-before), lr)
		}
		rows = append(rows, append(row, pen))
		start = end
	}
	return rows
}

// segmentRow is a segment's first columns: group, run, metric, segment,
// from_ms, until_ms, (from_ts, until_ts,) intervals, requests.
func (s *runSeries) segmentRow(m metricSeries, iv interval, j, t, u int) []any {
	row := append([]any{}, s.group...)
	from, until := (s.k0+int64(m.off+t))*iv.ms, (s.k0+int64(m.off+u))*iv.ms
	row = append(row, s.run, m.name, int64(j+1), from, until)
	if iv.origin != nil {
		row = append(row, rfc3339(*iv.origin, from), rfc3339(*iv.origin, until))
	}
	return append(row, int64(u-t), sum(s.requests[m.off+t:m.off+u]))
}

func rfc3339(origin time.Time, ms int64) string {
	return origin.Add(time.Duration(ms) * time.Millisecond).Format("2006-01-02T15:04:05.000Z07:00")
}

func direction(d float64) any {
	switch {
	case d > 0:
		return "up"
	case d < 0:
		return "down"
	}
	return nil
}

func sum(xs []int64) int64 {
	var t int64
	for _, x := range xs {
		t += x
	}
	return t
}

// medianOf is the median of the intervals' quantiles (nearest rank, the
// lower of two middles: a value one of them had), NaN for none.
func medianOf(ps []*float64) float64 {
	var xs []float64
	for _, p := range ps {
		if p != nil {
			xs = append(xs, *p)
		}
	}
	if len(xs) == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	return xs[(len(xs)-1)/2]
}

// orNil is x, or nil for NaN (a latency of intervals without one).
func orNil(x float64) any {
	if math.IsNaN(x) {
		return nil
	}
	return x
}

// mergeSmall merges neighbouring segments whose values differ by less than
// minChange of the larger (relative): with thousands of requests an
// interval, a p50 that moves from 4.1 to 4.3 ms under a busy machine's
// jitter is a clear change in the data and no incident. The closest pair
// goes first (the earliest of equals), and the values are taken again
// after each merge.
func mergeSmall(ends []int, value func(t, s int) float64, minChange float64) []int {
	for len(ends) > 1 {
		best, at := math.Inf(1), -1
		for j := 0; j+1 < len(ends); j++ {
			start := 0
			if j > 0 {
				start = ends[j-1]
			}
			if d := relChange(value(start, ends[j]), value(ends[j], ends[j+1])); d < minChange && d < best {
				best, at = d, j
			}
		}
		if at < 0 {
			break
		}
		ends = slices.Delete(ends, at, at+1)
	}
	return ends
}

// relChange is |a − b| / max(|a|, |b|): 0 for equal values, 0 for two
// missing ones (NaN), 1 for one missing.
func relChange(a, b float64) float64 {
	switch {
	case math.IsNaN(a) && math.IsNaN(b), a == b:
		return 0
	case math.IsNaN(a) || math.IsNaN(b):
		return 1
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}
