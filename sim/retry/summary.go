package retry

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
	"time"
)

// Summary is one strategy's row of the comparison table.
type Summary struct {
	Run, Label      string
	Requests        int // attempts sent
	FirstAttempts   int
	Retries         int
	BudgetDenied    int // failed attempts not retried because of the budget
	Peak1s          int64
	Peak100ms       int64
	AffectedOps     int     // operations whose first attempt is in the affected interval
	AffectedSuccess float64 // share of those that got a 200, 0–1
	P95Ms, P99Ms    float64 // operation latency: first send to end of last attempt
}

// Summarize computes the table row of r.
func Summarize(cfg Config, r Result) Summary {
	s := Summary{Run: r.Strategy.Name, Label: r.Strategy.Label, Requests: len(r.Attempts)}
	pts := make([]Point, 0, len(r.Attempts))
	for _, a := range r.Attempts {
		pts = append(pts, Point{TMs: ms(a.Sent), Count: 1})
		if a.N == 0 {
			s.FirstAttempts++
		} else {
			s.Retries++
		}
		if a.Drop == DropBudget {
			s.BudgetDenied++
		}
	}
	s.Peak1s = AlignedPeak(pts, 1000).Count
	s.Peak100ms = AlignedPeak(pts, 100).Count
	s.AffectedOps, s.AffectedSuccess = affected(cfg, r.Ops)
	lat := make([]float64, 0, len(r.Ops))
	for _, op := range r.Ops {
		lat = append(lat, ms(op.End-op.Start))
	}
	s.P95Ms, s.P99Ms = quantileCont(lat, 0.95), quantileCont(lat, 0.99)
	return s
}

func affected(cfg Config, ops []Op) (n int, success float64) {
	ok := 0
	for _, op := range ops {
		if op.Start >= cfg.AffectedFrom && op.Start < cfg.AffectedTo {
			n++
			if op.OK {
				ok++
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return n, float64(ok) / float64(n)
}

// WriteTable writes the summaries as an aligned text table.
func WriteTable(w io.Writer, sums []Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tstrategy\trequests\tfirst\tretries\tbudget_denied\tpeak_1s\tpeak_100ms\taffected_ops\tsuccess\tp95_ms\tp99_ms\t")
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f%%\t%.0f\t%.0f\t\n",
			s.Run, s.Label, s.Requests, s.FirstAttempts, s.Retries, s.BudgetDenied,
			s.Peak1s, s.Peak100ms, s.AffectedOps, 100*s.AffectedSuccess, s.P95Ms, s.P99Ms)
	}
	return tw.Flush()
}

// ms converts a virtual-clock duration to the log's milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Summaries summarizes each result in order.
func Summaries(cfg Config, results []Result) []Summary {
	out := make([]Summary, 0, len(results))
	for _, r := range results {
		out = append(out, Summarize(cfg, r))
	}
	return out
}

// Point is a number of requests at a time; a raw attempt is Count 1, a
// pre-binned series (like the seed's figure) carries its bucket counts.
type Point struct {
	TMs   float64
	Count int64
}

// Peak is the fullest aligned bucket of one width.
type Peak struct {
	Count int64
	AtMs  float64 // start of the first bucket holding Count
}

// AlignedPeak counts points in buckets [k·width, (k+1)·width) by TMs and
// returns the fullest one. Aligned buckets, not sliding windows, are what a
// dashboard at that resolution shows, and what the seed's table reports.
func AlignedPeak(points []Point, widthMs float64) Peak {
	counts := map[int64]int64{}
	for _, p := range points {
		counts[int64(math.Floor(p.TMs/widthMs))] += p.Count
	}
	keys := make([]int64, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var best Peak
	for _, k := range keys {
		if counts[k] > best.Count {
			best = Peak{Count: counts[k], AtMs: float64(k) * widthMs}
		}
	}
	return best
}

// quantileCont interpolates linearly between closest ranks, like DuckDB's
// quantile_cont, so the summary matches what an analysis of the log gives.
func quantileCont(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	if lo+1 >= len(s) {
		return s[lo]
	}
	// DuckDB's quantile_cont interpolates as lo*(1-d) + hi*d; the same
	// formula (and no fused multiply-add) keeps the two equal to the bit.
	d := pos - float64(lo)
	return float64(s[lo]*(1-d)) + float64(s[lo+1]*d)
}
