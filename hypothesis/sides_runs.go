package hypothesis

import (
	"database/sql"
	"fmt"

	"github.com/rewind-dev/rewind/store"
)

// RunRows is one run of an experiment as the sides are resolved from it,
// counted where the requests are (an engine over a dataset): the runs with
// at least one row, in run order.
type RunRows struct {
	Run, Role string
	Requests  int64           // sum of count
	SpanMs    sql.NullFloat64 // max(t_ms) - min(t_ms)
}

// DefaultSides is ResolveSides of the default hypothesis (role control
// against role experiment, else the experiment's only run) over the counts
// of runs, with the same refusals. A hypothesis that names a side, a split
// or a metric is not resolved here (it reads more than these counts).
func DefaultSides(e store.Experiment, h Hypothesis, runs []RunRows, absolute bool) (Sides, error) {
	if !h.IsDefault() {
		return Sides{}, fmt.Errorf("DefaultSides: the hypothesis names its sides or metric")
	}
	infos := make([]runInfo, len(runs))
	has := map[string]bool{}
	for i, r := range runs {
		infos[i] = runInfo{Run: r.Run, Role: r.Role, Requests: r.Requests, SpanMs: r.SpanMs}
		has[r.Role] = true
	}
	s := Sides{Metric: h.MetricOrDefault(),
		Control: Side{Experiment: e.Name, Role: "control"}, Treatment: Side{Experiment: e.Name, Role: "experiment"}}
	treated := has["experiment"]
	if !treated && len(runs) == 1 {
		s.Treatment, treated = Side{Experiment: e.Name, Run: runs[0].Run}, true
	}
	s.HasControl = has["control"]
	if !treated || (!s.HasControl && !absolute) {
		return s, sidesErrorOf(infos, e, h, s, !treated)
	}
	return s, nil
}
