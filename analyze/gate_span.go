package analyze

import (
	"database/sql"
	"fmt"
	"math"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
)

// gateMaxMeasurements bounds one replay (docs/limits.md): an Argo metric
// measured every 1 ms, or a log whose last row sits at t_ms 1e15, would
// otherwise hold one row per measurement in memory, gigabytes of them.
const gateMaxMeasurements = 100_000

// checkSpan refuses a replay whose schedule, one measurement every step
// ms from start to end, passes gateMaxMeasurements. what (a format, and
// its args) names the schedule's source: a metric's interval, or {every}.
func (s *gateSource) checkSpan(o GateOptions, step, end float64, what string, args ...any) error {
	start := msOf(o.Start)
	n := math.Floor((end-start)/step) + 1
	if n <= gateMaxMeasurements {
		return nil
	}
	last := ""
	if o.Until <= 0 {
		last = s.lastRow()
	}
	args = append(args, hypothesis.TrimFloat(start), hypothesis.TrimFloat(end), hypothesis.TrimFloat(n), gateMaxMeasurements, last)
	return param.Errorf("until", what+" over the replay from %s to %s ms makes %s measurements, more than %d%s: {until} ends the replay sooner", args...)
}

// lastRow names the row that sets the replay's end.
func (s *gateSource) lastRow() string {
	if s.db == nil {
		return ""
	}
	var run string
	var seq, line int64
	var t sql.NullFloat64
	var err error
	if s.remote != nil {
		run, seq, line, t, err = s.remote.lastRowOn(s.exp, s.role)
	} else {
		err = s.db.QueryRow(`SELECT run, seq, line, t_ms FROM requests WHERE experiment = ? AND (? = '' OR role = ?) AND t_ms IS NOT NULL
		ORDER BY t_ms DESC, run, seq LIMIT 1`, s.exp, s.role, s.role).Scan(&run, &seq, &line, &t)
	}
	if err != nil || !t.Valid {
		return ""
	}
	return fmt.Sprintf(" (the last row, run %q seq %d from line %d, is at t_ms %s)", run, seq, line, hypothesis.TrimFloat(t.Float64))
}

// argoStep is the shortest time between two measurements of a metric whose
// count does not bound them: its interval, or Argo's 10 s retry after an
// error. ok is false when every metric's count bounds it.
// what says which, for checkSpan.
func argoStep(metrics []argoMetric) (step float64, what string, ok bool) {
	step = math.Inf(1)
	for _, m := range metrics {
		if m.Count > 0 && m.Count*(m.ConsecutiveErrorLimit+1) <= gateMaxMeasurements {
			continue
		}
		d, w := argoErrorRetry, fmt.Sprintf("metric %q, retried every 10 s after an error,", m.Name)
		if m.HasInterval && m.Interval < d {
			d, w = m.Interval, fmt.Sprintf("metric %q, measured every %s,", m.Name, m.Interval)
		}
		if msOf(d) < step {
			step, what, ok = msOf(d), w, true
		}
	}
	return step, what, ok
}
