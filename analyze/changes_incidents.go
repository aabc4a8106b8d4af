package analyze

import "fmt"

// An Incident is a stretch of a run during which its error rate or a
// latency quantile stood above what it was just before, as Changes found
// it: found in the data, not planned. The report's verdict names them for
// a log without a plan, and judges them.
type Incident struct {
	Run             string
	FromMs, UntilMs int64
	IntervalMs      int64  // the changes' interval
	FromTs, UntilTs string // RFC 3339, "" when the log's times have no date
	// Shifts are the metrics that went up, the first one the incident's
	// (its place), then the others that went up during it.
	Shifts []Shift
}

// A Shift is one metric's rise: its value before, its highest segment's
// value during it, and where it rose and came back.
type Shift struct {
	Metric, Unit    string
	Before, Value   float64
	FromMs, UntilMs int64
	IntervalMs      int64
}

// incidentMetrics are the metrics an incident is read from, in the order
// they name it: errors first, then the tail before the middle.
var incidentMetrics = []string{"error_rate", "p95", "p99", "p50"}

// Incidents reads the incidents of each run from a Changes result without
// groups. A metric rises at a change up by more than minChange (relative)
// and stays up while its segments stay above the midpoint of the value
// before the rise and the highest since (a fall most of the way back ends
// it, though the level may stay a little above where it was); rises of several metrics that overlap make one incident, placed where
// the first of incidentMetrics that rose puts it.
func Incidents(r *Result, minChange float64) []Incident {
	if minChange <= 0 {
		minChange = DefaultMinChange
	}
	var out []Incident
	runs, shifts := shiftsByRun(r, minChange)
	for _, run := range runs {
		var incs []Incident
		for _, m := range incidentMetrics {
			for _, s := range shifts[run][m] {
				incs = addShift(incs, run, s)
			}
		}
		out = append(out, incs...)
	}
	for i := range out {
		out[i].FromTs, out[i].UntilTs = timesOf(r, out[i])
	}
	return out
}

// addShift adds s to the incident it overlaps, or makes it one.
func addShift(incs []Incident, run string, s Shift) []Incident {
	for i := range incs {
		if s.FromMs < incs[i].UntilMs && incs[i].FromMs < s.UntilMs {
			incs[i].Shifts = append(incs[i].Shifts, s)
			return incs
		}
	}
	return append(incs, Incident{Run: run, FromMs: s.FromMs, UntilMs: s.UntilMs, IntervalMs: s.IntervalMs, Shifts: []Shift{s}})
}

// shiftsByRun walks each run's segments metric by metric.
func shiftsByRun(r *Result, minChange float64) ([]string, map[string]map[string][]Shift) {
	col := func(row []any, name string) any { return row[r.Col(name)] }
	var runs []string
	out := map[string]map[string][]Shift{}
	var cur *Shift
	var prev float64
	var lastKey string
	for _, row := range r.Rows {
		run, metric := fmt.Sprint(col(row, "run")), fmt.Sprint(col(row, "metric"))
		if out[run] == nil {
			runs, out[run] = append(runs, run), map[string][]Shift{}
		}
		v, ok := col(row, "value").(float64)
		from, until := col(row, "from_ms").(int64), col(row, "until_ms").(int64)
		if key := run + "\x00" + metric; key != lastKey { // a new series
			lastKey, cur, prev = key, nil, v
			continue
		}
		switch {
		case !ok:
		case cur == nil && v > prev*(1+minChange):
			out[run][metric] = append(out[run][metric], Shift{Metric: metric, Unit: fmt.Sprint(col(row, "unit")),
				Before: prev, Value: v, FromMs: from, UntilMs: until, IntervalMs: (until - from) / col(row, "intervals").(int64)})
			cur = &out[run][metric][len(out[run][metric])-1]
		case cur != nil && v > (cur.Before+cur.Value)/2:
			cur.UntilMs = until
			cur.Value = max(cur.Value, v)
		case cur != nil:
			cur = nil
		}
		if cur == nil && ok {
			prev = v
		}
	}
	return runs, out
}

// timesOf finds the dates of an incident's edges in the result's rows.
func timesOf(r *Result, inc Incident) (string, string) {
	if r.Col("from_ts") < 0 {
		return "", ""
	}
	var from, until string
	for _, row := range r.Rows {
		if fmt.Sprint(row[r.Col("run")]) != inc.Run {
			continue
		}
		if row[r.Col("from_ms")].(int64) == inc.FromMs {
			from = fmt.Sprint(row[r.Col("from_ts")])
		}
		if row[r.Col("until_ms")].(int64) == inc.UntilMs {
			until = fmt.Sprint(row[r.Col("until_ts")])
		}
	}
	return from, until
}
