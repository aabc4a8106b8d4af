package analyze

import (
	"math"

	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// ChangesOptions steer Changes.
type ChangesOptions struct {
	Experiment string
	IntervalMs int64    // interval length in whole ms; 0: chosen from the log's rate (changesInterval)
	Penalty    float64  // per change, in the costs' units (−2 log-likelihood); 0: DefaultChangesPenalty
	MinSegment int      // fewest intervals in a segment; 0: DefaultMinSegment
	MinChange  float64  // smallest relative change kept between two segments; 0: DefaultMinChange (negative: none)
	By         []string // fields whose values split each run into groups (docs/by.md)
}

// DefaultMinSegment is the fewest intervals a segment holds: a change of
// one or two intervals is a blip, which peaks reports, not a new state.
const DefaultMinSegment = 3

// DefaultMinChange is the smallest change between two segments a row
// reports, relative to the larger value: 10 %.
const DefaultMinChange = 0.1

// DefaultChangesPenalty is the penalty per change for a series of n
// intervals: 3 ln n, the leading term of the modified BIC of Zhang and
// Siegmund (2007, Biometrics 63(1)), the default of R's changepoint
// package. BIC's 2 ln n (Schwarz 1978: the change's place and its level)
// is too generous when the change's place is searched for: on 40
// intervals of a stationary binomial series the best of the places beats
// it about half the time.
func DefaultChangesPenalty(n int) float64 { return 3 * math.Log(float64(n)) }

// Metrics are the series Changes segments, in the order of its rows.
var changeMetrics = []string{"error_rate", "p50", "p95", "p99", "throughput"}

// Changes finds where each run's error rate, latency quantiles and
// throughput change (docs/analyses/changes.md): one row per segment of
// each series, the first segment of a series having no before.
func Changes(db store.Querier, o ChangesOptions) (*Result, error) {
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, store.WithSuitable(db, err, "t_ms IS NOT NULL")
	}
	if o.Penalty < 0 || math.IsNaN(o.Penalty) || math.IsInf(o.Penalty, 0) {
		return nil, param.Errorf("penalty", "{penalty} %v: want a positive number (0: the default, 3 ln n)", o.Penalty)
	}
	if o.MinSegment == 0 {
		o.MinSegment = DefaultMinSegment
	}
	if o.MinSegment < 1 {
		return nil, param.Errorf("min-segment", "{min-segment} %d: want a positive number of intervals", o.MinSegment)
	}
	if o.MinChange == 0 {
		o.MinChange = DefaultMinChange
	}
	if math.IsNaN(o.MinChange) || o.MinChange >= 1 {
		return nil, param.Errorf("min-change", "{min-change} %v: want a share below 1 (0.1: changes of 10 %% or more)", o.MinChange)
	}
	g, err := groupBy(db, e.Name, o.By)
	if err != nil {
		return nil, err
	}
	iv, err := changesInterval(db, e.Name, o.IntervalMs)
	if err != nil {
		return nil, err
	}
	series, gcols, err := changesSeries(db, e.Name, g, iv.ms)
	if err != nil {
		return nil, err
	}
	res := changesResult(gcols, iv.origin != nil)
	res.Notes = append(res.Notes, iv.notes...)
	for _, s := range series {
		rows, note := s.segmentAll(o, iv)
		if note != nil {
			res.Notes = append(res.Notes, note)
		}
		res.Rows = append(res.Rows, rows...)
	}
	return res, nil
}

// changesResult is the empty result: the group's columns, then the
// segments', from_ts and until_ts only when the log's times have a date.
func changesResult(gcols []Column, dated bool) *Result {
	cols := append([]Column{}, gcols...)
	cols = append(cols, Column{"run", ""}, Column{"metric", ""}, Column{"segment", ""},
		Column{"from_ms", "ms"}, Column{"until_ms", "ms"})
	if dated {
		cols = append(cols, Column{"from_ts", ""}, Column{"until_ts", ""})
	}
	cols = append(cols, Column{"intervals", ""}, Column{"requests", "requests"}, Column{"unit", ""},
		Column{"value", Measured}, Column{"before", Measured}, Column{"change", Measured},
		Column{"direction", ""}, Column{"lr", "deviance"}, Column{"penalty", "deviance"})
	return &Result{Name: "changes", Columns: cols}
}

// metricName is how a metric reads in a note or a verdict.
func metricName(m string) string {
	if m == "error_rate" {
		return "error rate"
	}
	return m
}
