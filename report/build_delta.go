package report

import (
	"database/sql"
	"fmt"
	"math"
	"strconv"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/jsfmt"
	"github.com/rewind-dev/rewind/store"
)

// The delta table: each metric over the whole of each side of the
// hypothesis (control and treatment, or baseline and canary), and how far
// the treatment is from the control, absolute and relative. Latencies are
// quantile_cont over every row, as the latency table computes them.

// sideStats is one side's whole-run metrics; NaN where the log lacks the
// column.
type sideStats struct {
	requests                      float64
	okShare, errorRate            float64
	p50, p95, p99, max, mean, tps float64
}

func readSideStats(q store.Querier, s hypothesis.Side) (sideStats, error) {
	where, args := sideWhere(s)
	var v [10]sql.NullFloat64
	err := q.QueryRow(`SELECT sum(count)::DOUBLE,
		       (sum(count) FILTER (WHERE outcome = 'ok') / nullif(sum(count) FILTER (WHERE outcome IS NOT NULL), 0))::DOUBLE,
		       (sum(count) FILTER (WHERE outcome <> 'ok') / nullif(sum(count) FILTER (WHERE outcome IS NOT NULL), 0))::DOUBLE,
		       quantile_cont(latency_ms, 0.5), quantile_cont(latency_ms, 0.95), quantile_cont(latency_ms, 0.99),
		       max(latency_ms), avg(latency_ms),
		       (sum(count) / nullif((max(t_ms) - min(t_ms)) / 1000, 0))::DOUBLE, count(*)::DOUBLE
		FROM requests WHERE `+where, args...).Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9])
	f := func(i int) float64 {
		if v[i].Valid {
			return v[i].Float64
		}
		return math.NaN()
	}
	return sideStats{f(0), f(1), f(2), f(3), f(4), f(5), f(6), f(7), f(8)}, err
}

// sideStats are both sides' (on an engine, from the sides' step).
func (o Options) sideStats(q store.Querier, s hypothesis.Sides) (ctl, exp sideStats, err error) {
	if o.remote != nil {
		return o.remoteSideStats(q, s.Control, s.Treatment)
	}
	if ctl, err = readSideStats(q, s.Control); err != nil {
		return ctl, exp, err
	}
	exp, err = readSideStats(q, s.Treatment)
	return ctl, exp, err
}

// deltaMetrics are the table's rows: name, unit and the value of a side.
var deltaMetrics = []struct {
	name, unit string
	of         func(sideStats) float64
}{
	{"requests", "requests", func(s sideStats) float64 { return s.requests }},
	{"ok_share", "share", func(s sideStats) float64 { return s.okShare }},
	{"error_rate", "share", func(s sideStats) float64 { return s.errorRate }},
	{"p50", "ms", func(s sideStats) float64 { return s.p50 }},
	{"p95", "ms", func(s sideStats) float64 { return s.p95 }},
	{"p99", "ms", func(s sideStats) float64 { return s.p99 }},
	{"max", "ms", func(s sideStats) float64 { return s.max }},
	{"mean", "ms", func(s sideStats) float64 { return s.mean }},
	{"throughput", "req/s", func(s sideStats) float64 { return s.tps }},
}

// deltaSection needs both sides of the hypothesis.
func deltaSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	c := o.chart
	if !c.hasSides || !c.sides.HasControl {
		return nil, nil
	}
	ctl, exp, err := o.sideStats(q, c.sides)
	if err != nil {
		return nil, err
	}
	t := Table{Columns: []Column{{Name: "metric"}, {Name: "unit"}, {Name: "control"}, {Name: "experiment"},
		{Name: "delta"}, {Name: "relative"}}}
	for _, m := range deltaMetrics {
		a, b := m.of(ctl), m.of(exp)
		if !isFinite(a) && !isFinite(b) {
			continue // the log has no such column (e.g. no latency)
		}
		t.Rows = append(t.Rows, []Value{m.name, m.unit, human(a, m.unit), human(b, m.unit), delta(b-a, m.unit), relative(a, b)})
	}
	return &Section{Title: "Control vs experiment",
		Note: fmt.Sprintf("Each metric over the whole of each side (control: %s; experiment: %s). "+
			"Delta is experiment − control (shares in percentage points, pp); relative is delta / control.",
			o.sideName(c.sides.Control, "control"), o.sideName(c.sides.Treatment, "experiment")) + latencyNote(ctl, exp),
		Tables: []Table{t}}, nil
}

func latencyNote(ctl, exp sideStats) string {
	if isFinite(ctl.p50) || isFinite(exp.p50) {
		return " Latencies are quantile_cont over every row, as in the latency table."
	}
	return ""
}

// human is a value as the analyses print it; nil (the null mark) for none.
func human(v float64, unit string) Value {
	if !isFinite(v) {
		return nil
	}
	if unit == "requests" {
		return int64(v)
	}
	return shown{analyze.Human(v, unit), v}
}

func delta(d float64, unit string) Value {
	if !isFinite(d) {
		return nil
	}
	switch unit {
	case "share":
		return shown{signed(100*d) + " pp", d}
	case "requests":
		return shown{strconv.FormatFloat(d, 'f', -1, 64), d}
	}
	return shown{signed(d), d}
}

func relative(a, b float64) Value {
	r := (b - a) / a
	if !isFinite(r) {
		return nil
	}
	return shown{signed(100*r) + " %", r}
}

// signed writes two decimals with a sign, + for a rise.
func signed(v float64) string {
	s := jsfmt.Fixed(v, 2)
	if v >= 0 && s[0] != '-' {
		s = "+" + s
	}
	return s
}
