package report

import (
	"fmt"
	"strings"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

// When a 1 s view hides a burst. ratio_1s alone says too much: a run of a
// few requests a second has one request in its busiest 100 ms and a ratio
// up to 10× without any burst, and even traffic at 100 req/s counted per
// 100 ms shows a ratio near 1×. The rule compares the busiest 100 ms with
// the busiest second spread as evenly as its requests allow, ⌈peak_1s / 10⌉
// in each 100 ms: a burst is strictly more than twice that. In integers:
//
//	peak_100ms > 2 × ⌈peak_1s / 10⌉, i.e. peak_100ms > 2 × ((peak_1s + 9) / 10)
//
// with Go's integer division (peak_1s ≥ 0).
func hidesBurst(peak100ms, peak1s int64) bool {
	return peak1s > 0 && peak100ms > 2*((peak1s+9)/10)
}

// burstRule is the rule as the report states it.
const burstRule = "peak_100ms > 2 × ⌈peak_1s / 10⌉"

// bursts lists the runs of a peaks comparison (ComparePeaks at 100 ms and
// 1 s) whose 1 s view hides a burst, each as "RUN: … (ratio ×)".
func bursts(cmp *analyze.Result) []string {
	iRun, iFine, iCoarse, iRatio := cmp.Col("run"), cmp.Col("peak_100ms"), cmp.Col("peak_1s"), cmp.Col("ratio_1s")
	if iFine < 0 || iCoarse < 0 || iRatio < 0 {
		return nil
	}
	var out []string
	for _, row := range cmp.Rows {
		fine, coarse := toInt(row[iFine]), toInt(row[iCoarse])
		if hidesBurst(fine, coarse) {
			out = append(out, fmt.Sprintf("run %s: %d requests in its busiest 100 ms, %s the rate of its busiest second (%d requests)",
				row[iRun], fine, analyze.Human(row[iRatio], "x"), coarse))
		}
	}
	return out
}

// resolutionNote explains ratio_1s when some run hides a burst; when none
// does, it is one quiet line, and quietPeaks drops the ratio column.
func resolutionNote(cmp *analyze.Result) string {
	if len(bursts(cmp)) == 0 {
		return fmt.Sprintf("The busiest bucket of each run at 100 ms and at 1 s. No run's 1 s view hides a burst (%s in none).", burstRule)
	}
	return "The busiest bucket of each run at 100 ms and at 1 s. ratio_1s = (peak_100ms / 100 ms) / (peak_1s / 1 s): " +
		"how much a 1 s view understates the busiest moment; it hides a burst where " + burstRule + "."
}

// quietPeaks is the comparison without ratio_1s when no run hides a burst,
// so that a uniform or sparse log shows no 10× that means nothing.
func quietPeaks(cmp *analyze.Result) *analyze.Result {
	i := cmp.Col("ratio_1s")
	if i < 0 || len(bursts(cmp)) > 0 {
		return cmp
	}
	out := &analyze.Result{Name: cmp.Name, Notes: cmp.Notes}
	out.Columns = append(append(out.Columns, cmp.Columns[:i]...), cmp.Columns[i+1:]...)
	for _, row := range cmp.Rows {
		out.Rows = append(out.Rows, append(append([]any{}, row[:i]...), row[i+1:]...))
	}
	return out
}

// burstVerdict is a verdict line only when a 1 s view hides a burst.
func burstVerdict(q store.Querier, e store.Experiment, o Options) ([]Value, error) {
	if n, err := o.timedRows(q, e); err != nil || n == 0 {
		return nil, err
	}
	cmp, err := peaks100msVs1s(q, o, e.Name)
	if err != nil {
		return nil, err
	}
	b := bursts(cmp)
	if len(b) == 0 {
		return nil, nil
	}
	return []Value{"1 s view", "hides a burst", strings.Join(b, "; ")}, nil
}

// peaks100msVs1s is the peaks comparison at 100 ms and 1 s of an
// experiment, which the resolution section and the burst verdict read.
func peaks100msVs1s(q store.Querier, o Options, experiment string) (*analyze.Result, error) {
	peaks, err := o.peaks(q, analyze.PeaksOptions{Experiment: experiment, ResolutionsMs: []int64{100, 1000}})
	if err != nil {
		return nil, err
	}
	return analyze.ComparePeaks(peaks)
}
