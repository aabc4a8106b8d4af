package main

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

const peaksUsage = `Usage: rewind analyze peaks [flags]

Each run's busiest moment at several resolutions: the most requests in one
bucket [k*res, (k+1)*res) of t_ms, and where that bucket starts. Every
request row counts (retries are load too); a row with a count column counts
that many times, so a pre-binned series (run,t_ms,count) works like the raw
log it was binned from. Columns: run, resolution_ms, peak, peak_at_ms,
total, and with --sliding sliding_peak, sliding_at_ms (the fullest
half-open window [t, t+res), starting at a request).

With the table format, a comparison follows: per run the peaks side by side,
finest first, and ratio_R = (peak at the finest / its length) / (peak at R /
R), how much R's buckets understate the busiest moment (1x: not at all; 10x
for 100ms against 1s: the whole second's peak came in one 100 ms bucket).
--compare prints only the comparison, in any format. --by gives the peaks
per run and group (docs/by.md), without the comparison.

Examples:
  rewind analyze peaks
  rewind analyze peaks --resolutions 100ms,250ms,1s --sliding
  rewind analyze peaks --compare --format csv
  rewind analyze peaks --by method,status_class`

func init() {
	registerAnalysis(analysisCommand{name: "peaks", summary: "busiest bucket per run at several resolutions (100ms vs 1s)", run: runPeaks})
}

func runPeaks(ctx context.Context, e *env, args []string) error {
	var o analyze.PeaksOptions
	var resolutions string
	var compare bool
	a, fs := newAnalysis(e, "peaks", peaksUsage, &o.Experiment)
	fs.StringVar(&resolutions, "resolutions", "100ms,1s", "bucket lengths, whole ms: durations (100ms, 1s) or numbers of ms")
	fs.BoolVar(&o.Sliding, "sliding", false, "also the fullest sliding window of each length")
	fs.BoolVar(&compare, "compare", false, "print only the side-by-side comparison of the peaks")
	addBy(fs, &o.By)
	if err := a.parse(args); err != nil {
		return err
	}
	if compare && len(o.By) > 0 {
		return usagef("--compare and --by: the comparison is per run; give one of them")
	}
	var err error
	if o.ResolutionsMs, err = resolutionList(resolutions); err != nil {
		return err
	}
	// finish is the table and the comparison after it, from the peaks.
	finish := func(r *analyze.Result, err error) (*analyze.Result, *analyze.Result, error) {
		if err != nil {
			return nil, nil, err
		}
		if compare {
			c, err := analyze.ComparePeaks(r)
			return c, nil, err
		}
		var side *analyze.Result // the comparison printed after the table
		if a.d.format == "table" && len(o.ResolutionsMs) > 1 && len(o.By) == 0 {
			side, err = analyze.ComparePeaks(r)
		}
		return r, side, err
	}
	a.eng.remote = func(r *analyze.Remote) (*analyze.Result, *analyze.Result, error) {
		return finish(analyze.PeaksOn(r, o))
	}
	return a.runTwo(ctx, func(q store.Querier) (*analyze.Result, *analyze.Result, error) {
		return finish(analyze.Peaks(q, o))
	})
}

// resolutionList parses "100ms,1s" (or numbers of ms) into whole ms.
func resolutionList(s string) ([]int64, error) {
	var out []int64
	for _, p := range strings.Split(s, ",") {
		d, err := hypothesis.ParseInstant(p)
		if err != nil || d <= 0 || d%time.Millisecond != 0 {
			return nil, usagef("--resolutions %q: %q is not a positive whole number of ms (100ms, 1s, 250)", s, strings.TrimSpace(p))
		}
		if !slices.Contains(out, d.Milliseconds()) {
			out = append(out, d.Milliseconds())
		}
	}
	return out, nil
}
