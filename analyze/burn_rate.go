package analyze

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// BurnRateOptions steer BurnRate.
type BurnRateOptions struct {
	Experiment string
	SLO        hypothesis.Decimal    // share of good requests, e.g. 0.999 (ParseSLO reads 99.9%)
	Rules      []hypothesis.BurnRule // default: DefaultBurnRules
	// Good is a SQL boolean over the request columns that makes a request
	// good; default outcome = 'ok'. A row for which it is NULL is no event.
	Good string
	// Period is the SLO period the error budget is counted over (default
	// 30 days), at the run's own mean request rate.
	Period time.Duration
	// Step evaluates every Step of test time; 0: at every moment a window's
	// content changes (the first firing in continuous time).
	Step time.Duration
	// Partial evaluates windows that reach before the run's start.
	Partial bool
	By      []string // fields whose values split each run into groups (docs/by.md)
}

// BurnRate replays multi-window, multi-burn-rate alerts over each run: when
// each rule would first have fired, the requests and budget lost before.
func BurnRate(db store.Querier, o BurnRateOptions) (*Result, error) {
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, store.WithSuitable(db, err, "t_ms IS NOT NULL")
	}
	if o.SLO == "" {
		return nil, fmt.Errorf("burn rate needs an SLO, e.g. 99.9%%")
	}
	good := o.Good
	if good == "" {
		good = "outcome = 'ok'"
	} else if err := hypothesis.CheckGood(db, good, e.Name); err != nil {
		return nil, err
	}
	if err := hypothesis.RequireGoodLatency(db, good, "experiment = ?", e.Name); err != nil {
		return nil, err
	}
	g, err := groupBy(db, e.Name, o.By)
	if err != nil {
		return nil, err
	}
	rules := o.Rules
	if len(rules) == 0 {
		rules = hypothesis.DefaultBurnRules
	}
	if err := checkBurnWindows(db, e.Name, rules); err != nil {
		return nil, err
	}
	res, err := Query(db, "burn-rate", store.Units("burn_rate"), o.sql(good, rules, g), e.Name)
	if err != nil {
		return nil, err
	}
	if len(res.Rows) == 0 {
		return nil, fmt.Errorf("experiment %q has no t_ms: burn rates are evaluated over time and need send times", e.Name)
	}
	res.Notes = burnNotes(res, rules, o.Partial, len(o.By))
	return res, nil
}

func (o BurnRateOptions) sql(good string, rules []hypothesis.BurnRule, g grouping) string {
	q := hypothesis.BurnQuery{SLO: o.SLO, Rules: rules, Good: good, Period: o.Period, Step: o.Step, Partial: o.Partial}
	if g.key != "" {
		q.Group, q.Select = g.key, g.sel("*")
	}
	return q.SQL()
}

// burnNotes says which rules cannot fire within a run, and how many rows are
// no SLI event, from the macro's run_ms and unjudged columns, which it then
// drops from res (one row per run and rule, in run order; with groups, the
// first fields columns, per group and run, and a note names its group).
func burnNotes(res *Result, rules []hypothesis.BurnRule, partial bool, fields int) []*param.Error {
	runCol, msCol, noneCol := res.Col("run"), res.Col("run_ms"), res.Col("unjudged")
	var notes []*param.Error
	for i, row := range res.Rows {
		if i%len(rules) != 0 {
			continue
		}
		run := fmt.Sprint(row[runCol])
		if fields > 0 {
			run += " (" + groupText(res.Columns[:fields], row[:fields]) + ")"
		}
		ms, _ := row[msCol].(float64)
		none, _ := row[noneCol].(int64)
		d := time.Duration(math.Round(ms * float64(time.Millisecond))).Round(time.Millisecond)
		var long []string
		for _, r := range rules {
			if !partial && r.Long > d {
				long = append(long, r.Name)
			}
		}
		if len(long) > 0 {
			notes = append(notes, param.Textf("run %s lasts %s, less than the long window of %s: cannot fire ({partial} evaluates windows that reach before the start)",
				run, d, strings.Join(long, ", ")))
		}
		if none > 0 {
			notes = append(notes, param.Textf("run %s: %d of its request rows have good NULL and are not counted", run, none))
		}
	}
	res.Columns = res.Columns[:msCol]
	for i := range res.Rows {
		res.Rows[i] = res.Rows[i][:msCol]
	}
	return notes
}
