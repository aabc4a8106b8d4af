package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

// The resolution comparison: the same traffic counted per 100 ms and per
// 1 s.

// maxResolutionCharts caps the per-run charts; the peaks table lists every run.
const maxResolutionCharts = 6

// resolutionSection needs t_ms. Its table is `rewind analyze peaks`'s
// comparison (Peaks, ComparePeaks); its charts show each run counted per
// 100 ms and per 1 s bucket as rates, so both fit one axis.
func resolutionSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	fine, err := bucketRates(q, e.Name, 100)
	if err != nil || len(fine) == 0 {
		return nil, err
	}
	coarse, err := bucketRates(q, e.Name, 1000)
	if err != nil {
		return nil, err
	}
	peaks, err := analyze.Peaks(q, analyze.PeaksOptions{Experiment: e.Name, ResolutionsMs: []int64{100, 1000}})
	if err != nil {
		return nil, err
	}
	cmp, err := analyze.ComparePeaks(peaks)
	if err != nil {
		return nil, err
	}
	sec := &Section{Title: "Resolution",
		Note: "The busiest bucket of each run at 100 ms and at 1 s. ratio_1s = (peak_100ms / 100 ms) / (peak_1s / 1 s): " +
			"how much a 1 s view understates the busiest moment.",
		Tables: []Table{resultTable(cmp, "")}}
	hi, sparse := 0.0, []string(nil)
	for _, run := range slices.Sorted(maps.Keys(fine)) {
		if len(sec.Charts) == maxResolutionCharts {
			sec.Note += fmt.Sprintf(" Charts for the first %d runs.", maxResolutionCharts)
			break
		}
		f, c := fine[run].drawn(), coarse[run].drawn()
		if fine[run].sparse() {
			f = fine[run].busiestPerSecond()
			sparse = append(sparse, run)
		}
		hi = max(hi, slices.Max(append(f.Y, c.Y...)))
		sec.Charts = append(sec.Charts, Chart{
			Title: "Run " + run, Kind: KindStep, XLabel: "t (s)", YLabel: "req/s",
			Series: []Series{f, c}, Bands: o.chart.runBands(run),
		})
	}
	if len(sparse) > 0 {
		sec.Note += fmt.Sprintf(" At 2 requests or fewer in %.0f %% of its 100 ms buckets, a run's 100 ms rate is a comb of 0, 10 and 20 req/s; "+
			"for such a run (%s) the chart draws the busiest 100 ms of each second instead, the same peak.",
			100*sparseShare, strings.Join(sparse, ", "))
	}
	// One scale for every run, from 0, so that runs compare at a glance.
	for i := range sec.Charts {
		sec.Charts[i].YRange = [2]float64{0, hi}
	}
	return sec, nil
}

// sparseShare: a run is sparse when at least this share of its 100 ms
// buckets, first to last, hold 2 requests or fewer. Its 100 ms series
// then reads as a comb of 0, 10 and 20 req/s, so the chart draws the
// busiest 100 ms of each second instead: the same peak as the comb, one
// step per second, beside the 1 s mean it is compared with.
const sparseShare = 0.9

func (b *bucketed) sparse() bool {
	if b == nil || len(b.buckets) == 0 || b.width != 100 {
		return false
	}
	span := b.buckets[len(b.buckets)-1] - b.buckets[0] + 1
	low := span - int64(len(b.buckets)) // empty buckets
	for _, n := range b.counts {
		if n <= 2 {
			low++
		}
	}
	return float64(low) >= sparseShare*float64(span)
}

// busiestPerSecond is the highest 100 ms rate of each second.
func (b *bucketed) busiestPerSecond() Series {
	per := &bucketed{width: 1000}
	for i, k := range b.buckets {
		sec := k / 10
		if n := len(per.buckets); n > 0 && per.buckets[n-1] == sec {
			per.values[n-1] = max(per.values[n-1], b.values[i])
			continue
		}
		per.buckets, per.values = append(per.buckets, sec), append(per.values, b.values[i])
	}
	s := per.drawn()
	s.Name = "busiest 100 ms of each 1 s"
	return s
}

// drawn is the step series of the buckets (see bucketSteps).
func (b *bucketed) drawn() Series {
	if b == nil {
		return Series{}
	}
	x, y := bucketSteps(b.buckets, b.values, float64(b.width)/1000)
	return Series{Name: "per " + duration(float64(b.width)), X: x, Y: y}
}

// bucketRates returns, per run, the request rate in each bucket of bucketMs
// milliseconds.
func bucketRates(q store.Querier, exp string, bucketMs int64) (map[string]*bucketed, error) {
	r, err := analyze.Query(q, "buckets", nil, `SELECT run, floor(t_ms / ?)::BIGINT AS bucket, sum(count)::BIGINT AS n
		FROM requests WHERE experiment = ? AND t_ms IS NOT NULL GROUP BY ALL ORDER BY run, bucket`, bucketMs, exp)
	if err != nil {
		return nil, err
	}
	perSecond := 1000 / float64(bucketMs)
	runs := map[string]*bucketed{}
	for _, row := range r.Rows {
		run := fmt.Sprint(row[0])
		if runs[run] == nil {
			runs[run] = &bucketed{width: bucketMs}
		}
		runs[run].add(row[1].(int64), row[2].(int64), number(row[2])*perSecond)
	}
	return runs, nil
}

// bucketed is one run's non-empty buckets of width ms, ascending, their
// request counts and their rates (req/s).
type bucketed struct {
	width   int64
	buckets []int64
	counts  []int64
	values  []float64
}

func (b *bucketed) add(bucket, n int64, v float64) {
	b.buckets, b.counts, b.values = append(b.buckets, bucket), append(b.counts, n), append(b.values, v)
}

// bucketSteps lays out counts per bucket (non-empty buckets, ascending) as
// a step series, X the bucket start times width: an empty bucket between two
// others is a zero, not skipped (a 5 req/s run counted per 100 ms is 10, 0,
// 10, 0, … and not a flat 10), and a last point closes the last bucket so
// that it is drawn as wide as the others. A zero is placed only at the first
// empty bucket of each gap, as it holds until the next point, so a long
// pause costs one point.
func bucketSteps(buckets []int64, values []float64, width float64) (x, y []float64) {
	for i, b := range buckets {
		x, y = append(x, float64(b)*width), append(y, values[i])
		if i+1 < len(buckets) && buckets[i+1] > b+1 {
			x, y = append(x, float64(b+1)*width), append(y, 0)
		}
	}
	if n := len(buckets); n > 0 {
		x, y = append(x, float64(buckets[n-1]+1)*width), append(y, values[n-1])
	}
	return x, y
}
