package hypothesis

import (
	"database/sql"
	"fmt"
	"slices"

	"github.com/rewind-dev/rewind/store"
)

// RunRows is one run of an experiment as the sides are resolved from it,
// counted where the requests are (an engine over a dataset): a run with at
// least one row.
type RunRows struct {
	Run, Role string
	Requests  int64           // sum of count
	SpanMs    sql.NullFloat64 // max(t_ms) - min(t_ms)
}

// ResolveSidesCounted is ResolveSides over runs counted elsewhere: runsOf
// gives an experiment's runs with rows, in run order; db answers the rest
// (the runs table). It resolves the same sides with the same refusals, for
// a hypothesis without a time split and a metric that reads no latency:
// those read requests in ways the counts do not hold (a split's rows, the
// latency checks), and are refused.
func ResolveSidesCounted(db store.Querier, e store.Experiment, h Hypothesis, runsOf func(exp string) ([]RunRows, error), absolute bool) (Sides, error) {
	if err := CheckMetric(h.MetricOrDefault()); err != nil {
		return Sides{Metric: h.MetricOrDefault()}, err
	}
	if h.BaselineUntil != "" || NeedsLatency(h.MetricOrDefault()) {
		return Sides{}, fmt.Errorf("ResolveSidesCounted: a time split or a latency metric needs the requests")
	}
	return resolveSides(db, countedRows(runsOf), e, h, absolute)
}

type countedRows func(exp string) ([]RunRows, error)

func (c countedRows) runs(exp string) ([]runInfo, error) {
	rs, err := c(exp)
	out := make([]runInfo, len(rs))
	for i, r := range rs {
		out[i] = runInfo{Run: r.Run, Role: r.Role, Requests: r.Requests, SpanMs: r.SpanMs}
	}
	return out, err
}

// rows is 1 when a run of the side has rows: a side without time bounds
// holds every row of its runs.
func (c countedRows) rows(s Side) (int64, error) {
	if s.FromMs != nil || s.UntilMs != nil {
		return 0, fmt.Errorf("side %s: counted runs do not hold a part of a run", s)
	}
	rs, err := c(s.Experiment)
	if err != nil {
		return 0, err
	}
	if slices.ContainsFunc(rs, func(r RunRows) bool { return (s.Run != "" && r.Run == s.Run) || (s.Run == "" && r.Role == s.Role) }) {
		return 1, nil
	}
	return 0, nil
}
