package hypothesis

import (
	"database/sql"
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
	Rows      int64           // rows
	Latencies int64           // rows with a latency_ms
	Weighted  int64           // rows with a latency_ms and count > 1
	Formats   sql.NullString  // the formats of its files, ", "-separated in order
}

// Counted are what ResolveSidesCounted reads where the requests are (an
// engine over a dataset).
type Counted struct {
	// Runs gives an experiment's runs with rows, in run order.
	Runs func(exp string) ([]RunRows, error)
	// Part gives the runs of a side with time bounds (a part of a split
	// run), counted over its rows.
	Part func(Side) ([]RunRows, error)
	// Event reads an event of an experiment's events, for a split at it.
	Event EventReader
}

// ResolveSidesCounted is ResolveSides over runs counted elsewhere (c); db
// answers the rest (the runs table). It resolves the same sides with the
// same refusals.
func ResolveSidesCounted(db store.Querier, e store.Experiment, h Hypothesis, c Counted, absolute bool) (Sides, error) {
	return resolveSides(db, countedRows{c}, e, h, absolute)
}

type countedRows struct{ Counted }

func (c countedRows) runs(exp string) ([]runInfo, error) {
	rs, err := c.Runs(exp)
	out := make([]runInfo, len(rs))
	for i, r := range rs {
		out[i] = runInfo{Run: r.Run, Role: r.Role, Requests: r.Requests, SpanMs: r.SpanMs}
	}
	return out, err
}

// of are the side's runs: a side without time bounds holds every row of
// its runs; one with them is counted over its part.
func (c countedRows) of(s Side) ([]RunRows, error) {
	if s.FromMs != nil || s.UntilMs != nil {
		return c.Part(s)
	}
	rs, err := c.Runs(s.Experiment)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(slices.Clone(rs), func(r RunRows) bool {
		return !((s.Run != "" && r.Run == s.Run) || (s.Run == "" && r.Role == s.Role))
	}), nil
}

// splitAt is splitMs over the events as c.Event reads them.
func (c countedRows) splitAt(exp, v string) (float64, string, error) { return splitMs(exp, v, c.Event) }

// rows is 1 when a run of the side has rows.
func (c countedRows) rows(s Side) (int64, error) {
	rs, err := c.of(s)
	return int64(min(len(rs), 1)), err
}

func (c countedRows) noLatency(s Side) ([]string, error) {
	rs, err := c.of(s)
	var out []string
	for _, r := range rs {
		if r.Rows > 0 && r.Latencies == 0 {
			out = append(out, noLatencyRun(s.Experiment, r.Run, r.Rows, r.Formats))
		}
	}
	return out, err
}

func (c countedRows) weighted(s Side) (int64, error) {
	rs, err := c.of(s)
	var n int64
	for _, r := range rs {
		n += r.Weighted
	}
	return n, err
}
