package analyze

import (
	"fmt"
	"slices"
)

// ComparePeaks turns the rows of Peaks (one per run and resolution) into one
// row per run with the peaks side by side: peak_100ms, peak_1s, ... from the
// finest resolution to the coarsest, then ratio_1s, ... for each coarser one.
//
// ratio_R is the peak rate seen at the finest resolution F over the peak rate
// seen at R: (peak_F / F) / (peak_R / R). 1× means R's buckets hide nothing;
// R/F× (10× for 100 ms against 1 s) means the whole of R's fullest bucket
// arrived within one bucket of F. It is how much a dashboard at R understates
// the busiest moment.
func ComparePeaks(r *Result) (*Result, error) {
	iRun, iRes, iPeak := r.Col("run"), r.Col("resolution_ms"), r.Col("peak")
	if iRun < 0 || iRes < 0 || iPeak < 0 {
		return nil, fmt.Errorf("compare peaks: want the columns of peaks, got %v", r.Columns)
	}
	var runs []string
	var res []int64
	peak := map[string]map[int64]int64{}
	for _, row := range r.Rows {
		run, _ := row[iRun].(string)
		ms, _ := row[iRes].(int64)
		if peak[run] == nil {
			runs = append(runs, run)
			peak[run] = map[int64]int64{}
		}
		if !slices.Contains(res, ms) {
			res = append(res, ms)
		}
		peak[run][ms], _ = row[iPeak].(int64)
	}
	slices.Sort(res)
	out := &Result{Name: "peaks-compare", Columns: compareColumns(res)}
	for _, run := range runs {
		out.Rows = append(out.Rows, compareRow(run, res, peak[run]))
	}
	return out, nil
}

func compareColumns(res []int64) []Column {
	cols := []Column{{Name: "run"}}
	for _, ms := range res {
		cols = append(cols, Column{Name: "peak_" + ResolutionName(ms), Unit: "requests"})
	}
	for _, ms := range res[min(1, len(res)):] {
		cols = append(cols, Column{Name: "ratio_" + ResolutionName(ms), Unit: "x"})
	}
	return cols
}

// compareRow divides once, num/den with both products exact in float64 for
// any realistic count and resolution, so the ratio carries one rounding.
func compareRow(run string, res []int64, peak map[int64]int64) []any {
	row := []any{run}
	for _, ms := range res {
		row = append(row, peak[ms])
	}
	if len(res) == 0 {
		return row
	}
	fine := res[0]
	for _, ms := range res[1:] {
		num, den := peak[fine]*ms, peak[ms]*fine
		if den == 0 {
			row = append(row, nil)
			continue
		}
		row = append(row, float64(num)/float64(den))
	}
	return row
}
