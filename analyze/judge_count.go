package analyze

import (
	"database/sql"
	"fmt"
	"math"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// maxExpanded bounds the requests that rows with count > 1 stand for in
// the analyses that write such a row out once per request (thresholds'
// trends, judge's short and count steps, omission's quantiles): 400 rows
// of count 100,000 took 65 s and 5.5 GB, count 10^8 a 512 GiB vector.
// docs/limits.md.
const maxExpanded = 10_000_000

// checkExpansion refuses an experiment whose rows with count > 1 stand for
// more than maxExpanded requests, naming the largest such row.
func checkExpansion(db store.Querier, exp, analysis string) error {
	var total sql.NullFloat64
	if err := db.QueryRow(`SELECT sum(count)::DOUBLE FROM requests WHERE experiment = ? AND count > 1`, exp).Scan(&total); err != nil {
		return err
	}
	if !total.Valid || total.Float64 <= maxExpanded {
		return nil
	}
	var run string
	var seq, line, count int64
	if err := db.QueryRow(`SELECT run, seq, line, count FROM requests WHERE experiment = ? ORDER BY count DESC, run, seq LIMIT 1`, exp).Scan(&run, &seq, &line, &count); err != nil {
		return err
	}
	return expansionError(exp, analysis, total.Float64, run, seq, line, count)
}

// expansionError is checkExpansion's refusal: exp's rows with count > 1
// stand for total requests; the largest is run's seq, from line.
func expansionError(exp, analysis string, total float64, run string, seq, line, count int64) error {
	return fmt.Errorf("experiment %q: its rows with count > 1 stand for %.0f requests, more than the %d that %s writes out one by one (the largest, run %q seq %d from line %d, has count %d): it needs one row per request, or fewer, larger steps",
		exp, total, maxExpanded, analysis, run, seq, line, count)
}

// checkSteps refuses a {step} that cuts the experiment's span into more
// than maxTicks steps: --step 1ns over a minute asked DuckDB for lists past
// 2^32 elements. The whole table's span of t_ms, which DuckDB takes from
// its statistics without a scan, bounds the experiment's: only where it
// does not pass is the experiment's own read (a pass over its requests,
// issue 41).
func (o JudgeOptions) checkSteps(db store.Querier, exp string) error {
	if o.StepN > 0 {
		return nil
	}
	x, err := tableExtremes(db)
	if err != nil {
		return err
	}
	if o.checkSpan(x.sendSpan()) == nil {
		return nil
	}
	var span sql.NullFloat64
	if err := db.QueryRow(`SELECT max(t_ms) - min(t_ms) FROM requests WHERE experiment = ?`, exp).Scan(&span); err != nil {
		return err
	}
	return o.checkSpan(span)
}

// checkSpan is checkSteps over the experiment's span of t_ms (max - min).
func (o JudgeOptions) checkSpan(span sql.NullFloat64) error {
	if o.StepN > 0 || !span.Valid {
		return nil
	}
	n := math.Floor(span.Float64/msOf(o.Step)) + 1
	if n <= maxTicks {
		return nil
	}
	return param.Errorf("step", "{step} %s over the experiment's %s ms makes %s steps, more than %d: a longer {step}",
		o.Step, hypothesis.TrimFloat(span.Float64), hypothesis.TrimFloat(n), maxTicks)
}
