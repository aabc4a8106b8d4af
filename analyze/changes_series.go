package analyze

import (
	"fmt"

	"github.com/rewind-dev/rewind/store"
)

// runSeries is one run's (and group's) intervals, dense from its first
// interval k0 to its last: an interval without requests is all zeros and
// has no latency.
type runSeries struct {
	group    []any
	gtext    string // the group as a note names it, "" without one
	run      string
	k0       int64
	requests []int64
	judged   []int64
	errors   []int64
	timed    []int64
	over     [3][]int64    // over_p50, over_p95, over_p99
	lat      [3][]*float64 // p50_ms, p95_ms, p99_ms; nil for an interval without a latency
}

// changesSeries runs the series macro and splits its rows by run and
// group; gcols are the group's columns.
func changesSeries(db store.Querier, exp string, g grouping, ms int64) ([]*runSeries, []Column, error) {
	q := fmt.Sprintf(`SELECT %s FROM %s, ?)`, g.sel("*"), g.call("changes_series"))
	r, err := Query(db, "changes_series", nil, q, exp, ms)
	if err != nil {
		return nil, nil, err
	}
	ng := r.Col("run")
	gcols := r.Columns[:ng]
	var out []*runSeries
	var cur *runSeries
	for _, row := range r.Rows {
		run, k := fmt.Sprint(row[ng]), toInt64(row[ng+1])
		if cur == nil || cur.run != run || fmt.Sprint(cur.group) != fmt.Sprint(row[:ng]) {
			cur = &runSeries{group: row[:ng], run: run, k0: k}
			if ng > 0 {
				cur.gtext = groupText(gcols, row[:ng]) + ", "
			}
			out = append(out, cur)
		}
		cur.add(k, row[ng+2:])
	}
	return out, gcols, nil
}

// add appends interval k (and the empty ones before it) from the columns
// after run and k: requests, judged, errors, timed, over_p50..99, p50..99.
func (s *runSeries) add(k int64, v []any) {
	for int64(len(s.requests)) < k-s.k0 {
		s.push(make([]any, 10))
	}
	s.push(v)
}

func (s *runSeries) push(v []any) {
	s.requests = append(s.requests, toInt64(v[0]))
	s.judged = append(s.judged, toInt64(v[1]))
	s.errors = append(s.errors, toInt64(v[2]))
	s.timed = append(s.timed, toInt64(v[3]))
	for i := range 3 {
		s.over[i] = append(s.over[i], toInt64(v[4+i]))
		var p *float64
		if f, ok := v[7+i].(float64); ok {
			p = &f
		}
		s.lat[i] = append(s.lat[i], p)
	}
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case float64:
		return int64(x)
	}
	return 0
}
