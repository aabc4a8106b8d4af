package report

import (
	"fmt"
	"strings"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// The SLO sections: k6 thresholds (given, or recorded with a k6 log) and
// burn-rate alerts (when an SLO is given), each the result of the analysis
// of the same name, with its verdict line.

// thresholdsApply reports whether the thresholds section is shown: the
// report was given thresholds, or the k6 log recorded some.
func thresholdsApply(q store.Querier, e store.Experiment, o Options) (bool, error) {
	if len(o.Thresholds) > 0 {
		return true, nil
	}
	if o.remote != nil {
		var n int64
		err := q.QueryRow(`SELECT recorded FROM _report_events`).Scan(&n)
		return n > 0, err
	}
	return analyze.RecordsThresholds(q, e.Name)
}

func thresholds(q store.Querier, e store.Experiment, o Options) (*analyze.Result, error) {
	if ok, err := thresholdsApply(q, e, o); !ok || err != nil {
		return nil, err
	}
	return o.thresholds(q, analyze.ThresholdsOptions{Experiment: e.Name, Thresholds: o.Thresholds})
}

func thresholdsSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	r, err := thresholds(q, e, o)
	if r == nil || err != nil {
		return nil, err
	}
	note := "k6 thresholds replayed as k6 evaluates them (every 2 s of test time, over all samples so far): " +
		"pass is the verdict k6 prints, at the abort when an abortOnFail threshold aborts the test."
	return &Section{Title: "Thresholds", Note: withNotes(note, r, o), Tables: []Table{resultTable(r, "")}}, nil
}

// thresholdsVerdict is "passed", or how many failed and which, first.
func thresholdsVerdict(q store.Querier, e store.Experiment, o Options) ([]Value, error) {
	r, err := thresholds(q, e, o)
	if r == nil || err != nil {
		return nil, err
	}
	var failed []string
	for _, row := range r.Rows {
		if pass, _ := row[r.Col("pass")].(bool); pass {
			continue
		}
		f := fmt.Sprintf("%s %s: %s = %s", row[r.Col("run")], row[r.Col("metric")], row[r.Col("threshold")],
			analyze.Human(row[r.Col("value")], analyze.Measured))
		if at := row[r.Col("abort_ms")]; at != nil {
			f += fmt.Sprintf(", aborts at %s ms", trimFloatText(toFloat(at)))
		}
		failed = append(failed, f)
	}
	n := int64(len(r.Rows))
	if len(failed) == 0 {
		return []Value{"k6 thresholds", "passed", fmt.Sprintf("%d of %s passed", n, hypothesis.Plural(n, "threshold"))}, nil
	}
	return []Value{"k6 thresholds", fmt.Sprintf("%d of %d failed", len(failed), n), strings.Join(failed, "; ")}, nil
}

func burnRate(q store.Querier, e store.Experiment, o Options) (*analyze.Result, error) {
	if o.SLO == "" {
		return nil, nil
	}
	return o.burnRate(q, analyze.BurnRateOptions{Experiment: e.Name, SLO: o.SLO, Rules: o.BurnRules, Good: o.Good, Period: o.Period})
}

func burnRateSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	r, err := burnRate(q, e, o)
	if r == nil || err != nil {
		return nil, err
	}
	note := fmt.Sprintf("Multi-window burn-rate alerts replayed over each run at SLO %s: a rule SHORT/LONG>FACTOR fires "+
		"at the first moment both windows burn the error budget faster than FACTOR.", sloText(o.SLO))
	return &Section{Title: "Burn rate", Note: withNotes(note, r, o), Tables: []Table{resultTable(r, "")}}, nil
}

// burnVerdict names, per run, the first rule that fires and when.
func burnVerdict(q store.Querier, e store.Experiment, o Options) ([]Value, error) {
	r, err := burnRate(q, e, o)
	if r == nil || err != nil {
		return nil, err
	}
	first := map[string]string{}
	var runs []string
	best := map[string]float64{}
	for _, row := range r.Rows {
		run := fmt.Sprint(row[r.Col("run")])
		if _, seen := best[run]; !seen {
			runs, best[run] = append(runs, run), toFloat(nil)
		}
		at := toFloat(row[r.Col("fired_at_ms")])
		if at == at && !(best[run] <= at) {
			best[run] = at
			first[run] = fmt.Sprintf("%s: %s fires at %s ms, %s failed before", run, row[r.Col("rule")], trimFloatText(at),
				hypothesis.Plural(toInt(row[r.Col("failed_before")]), "request"))
		}
	}
	var fired, quiet []string
	for _, run := range runs {
		if s, ok := first[run]; ok {
			fired = append(fired, s)
		} else {
			quiet = append(quiet, run)
		}
	}
	question := "burn rate at SLO " + sloText(o.SLO)
	if len(fired) == 0 {
		return []Value{question, "never fires", "no rule fires in " + strings.Join(quiet, ", ")}, nil
	}
	detail := strings.Join(fired, "; ")
	if len(quiet) > 0 {
		detail += "; no rule fires in " + strings.Join(quiet, ", ")
	}
	return []Value{question, fmt.Sprintf("fires in %d of %s", len(fired), hypothesis.Plural(int64(len(runs)), "run")), detail}, nil
}

// sloText shows an SLO share as a percentage, every digit kept: 0.999 is
// 99.9 %.
func sloText(slo hypothesis.Decimal) string {
	var f float64
	if _, err := fmt.Sscan(string(slo), &f); err != nil {
		return string(slo)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.6f", 100*f), "0"), ".") + " %"
}

// withNotes appends an analysis's notes to a section note, as sentences,
// their parameters named as o says.
func withNotes(note string, r *analyze.Result, o Options) string {
	for _, n := range r.SayNotes(o.paramName) {
		note += " " + strings.ToUpper(n[:1]) + n[1:] + "."
	}
	return note
}
