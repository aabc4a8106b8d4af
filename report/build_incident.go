package report

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// A log without a plan (no control and experiment roles, or no window)
// still has a story: when did the service change? The verdict then leads
// with the incidents `rewind analyze changes` finds, and judges the first
// with what a plan would have judged: the steady-state hypothesis split at
// its start (the run before it as the baseline), the burn-rate rules, and
// the peaks inside it. Every row says "found, not planned".

const found = "(found, not planned)"

// incidentVerdicts are the verdict's rows for a log without a plan.
func incidentVerdicts(q store.Querier, e store.Experiment, o Options) ([][]Value, error) {
	if o.remote != nil {
		n, err := o.timedRows(q, e)
		if err != nil || n == 0 {
			return nil, err // no times: nothing to find, as changes says
		}
		return nil, o.notOnEngine("verdict for a log without a control and an experiment run and a window",
			"its incidents are analyze changes', which has no reduce steps")
	}
	r, err := analyze.Changes(q, analyze.ChangesOptions{Experiment: e.Name})
	var pe *param.Error
	if errors.As(err, &pe) {
		return nil, nil // no times: nothing to find
	}
	if err != nil {
		return nil, err
	}
	incs := analyze.Incidents(r, 0)
	if len(incs) == 0 {
		return [][]Value{{"incidents " + found, "none found", changesNone(r)}}, nil
	}
	var rows [][]Value
	for _, inc := range incs {
		rows = append(rows, []Value{"incident " + found, incidentText(inc), incidentDetail(inc)})
	}
	judged, err := judgeIncident(q, e, o, incs[0])
	return append(rows, judged...), err
}

// changesNone says why no incident was found: a quiet log, or one too
// short or too sparse to tell.
func changesNone(r *analyze.Result) string {
	if len(r.Rows) == 0 {
		return "the log is too short or too sparse to tell a change (rewind analyze changes says why)"
	}
	return "no rise of the error rate or of a latency quantile (rewind analyze changes)"
}

// incidentText: error rate 1.46 % → 28.50 % from 15 s to 30 s (15 s).
func incidentText(inc analyze.Incident) string {
	s := inc.Shifts[0]
	return fmt.Sprintf("%s from %s to %s (%s)", shiftText(s), seconds(inc.FromMs), seconds(inc.UntilMs), seconds(inc.UntilMs-inc.FromMs))
}

// incidentDetail: the other metrics that rose, the run and the dates.
func incidentDetail(inc analyze.Incident) string {
	var parts []string
	for _, s := range inc.Shifts[1:] {
		p := shiftText(s)
		if s.FromMs == inc.FromMs && s.UntilMs == inc.UntilMs {
			p += " over the same window"
		} else {
			p += fmt.Sprintf(" from %s to %s", seconds(s.FromMs), seconds(s.UntilMs))
		}
		parts = append(parts, p)
	}
	where := "run " + inc.Run
	if inc.FromTs != "" {
		where += fmt.Sprintf(", %s to %s", inc.FromTs, inc.UntilTs)
	}
	return strings.Join(append(parts, where), "; ")
}

func shiftText(s analyze.Shift) string {
	name := strings.ReplaceAll(s.Metric, "_", " ")
	return fmt.Sprintf("%s %s → %s", name, shiftValue(s.Before, s.Unit), shiftValue(s.Value, s.Unit))
}

func shiftValue(v float64, unit string) string {
	if unit == "share" {
		return analyze.Human(v, "share")
	}
	return trimFloatText(v) + " " + unit
}

// seconds writes ms of t_ms as seconds: 15 s, 14.9 s.
func seconds(ms int64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", float64(ms)/1000), "0"), ".") + " s"
}

// judgeIncident judges the first incident as a plan would have. With an
// SLO given, the report's own burn-rate row answers for the rules.
func judgeIncident(q store.Querier, e store.Experiment, o Options, inc analyze.Incident) ([][]Value, error) {
	var rows [][]Value
	judges := []func(store.Querier, store.Experiment, Options, analyze.Incident) ([]Value, error){splitVerdict, incidentBurnVerdict, incidentPeaksVerdict}
	if o.SLO != "" {
		judges = []func(store.Querier, store.Experiment, Options, analyze.Incident) ([]Value, error){splitVerdict, incidentPeaksVerdict}
	}
	for _, f := range judges {
		row, err := f(q, e, o, inc)
		if err != nil {
			return nil, err
		}
		if row != nil {
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// splitVerdict is the steady-state hypothesis with the run before the
// incident as the baseline and the rest of the run as the treatment, in
// windows of the changes' interval.
func splitVerdict(q store.Querier, e store.Experiment, o Options, inc analyze.Incident) ([]Value, error) {
	w := hypothesis.Window{Ms: float64(inc.IntervalMs)}
	h := hypothesis.Hypothesis{Control: inc.Run, BaselineUntil: fmt.Sprintf("%dms", inc.FromMs)}
	r, err := analyze.Falsification(q, analyze.FalsificationOptions{Experiment: e.Name, Window: w, Hypothesis: h, Margins: []float64{o.Margin}})
	var pe *param.Error
	if errors.As(err, &pe) || err == nil && len(r.Rows) == 0 {
		return nil, nil // e.g. no window before the incident
	}
	if err != nil {
		return nil, err
	}
	row := r.Rows[0]
	baseline := toFloat(row[r.Col("baseline")])
	ctlF, ctlN := toInt(row[r.Col("control_falsified")]), toInt(row[r.Col("control_windows")])
	expF, expN := toInt(row[r.Col("experiment_falsified")]), toInt(row[r.Col("experiment_windows")])
	detail := fmt.Sprintf("ok share ≥ %s (baseline %s, the run before %s, − margin %s) per %s window; from %s on: %d of %s falsified; before: %d of %d",
		analyze.Human(baseline-o.Margin, "share"), analyze.Human(baseline, "share"), seconds(inc.FromMs), analyze.Human(o.Margin, "share"),
		w.String(), seconds(inc.FromMs), expF, hypothesis.Plural(expN, "window"), ctlF, ctlN)
	verdict := "held"
	if expF > 0 {
		verdict = "falsified"
	}
	return []Value{"steady-state hypothesis " + found, verdict, detail}, nil
}

// incidentBurnVerdict: when the SRE workbook's rules would first have
// fired in the incident's run (at 99 %, the report having no SLO), and the
// requests that had failed by then; a rule whose long window is longer
// than the run cannot fire, and the row says so.
func incidentBurnVerdict(q store.Querier, e store.Experiment, o Options, inc analyze.Incident) ([]Value, error) {
	slo := hypothesis.Decimal("0.99")
	r, err := analyze.BurnRate(q, analyze.BurnRateOptions{Experiment: e.Name, SLO: slo, Rules: o.BurnRules, Good: o.Good, Period: o.Period})
	if err != nil {
		return nil, err
	}
	best, bestRow := math.Inf(1), -1
	var notes []string
	for i, row := range r.Rows {
		if fmt.Sprint(row[r.Col("run")]) != inc.Run {
			continue
		}
		if at := toFloat(row[r.Col("fired_at_ms")]); at == at && at < best {
			best, bestRow = at, i
		} else if n, ok := row[r.Col("note")].(string); ok {
			notes = append(notes, fmt.Sprintf("%s: %s", row[r.Col("rule")], n))
		}
	}
	question := fmt.Sprintf("burn rate at SLO %s %s", sloText(slo), found)
	if bestRow < 0 {
		return []Value{question, "never fires", strings.Join(notes, "; ")}, nil
	}
	row := r.Rows[bestRow]
	at := int64(math.Round(best))
	return []Value{question, fmt.Sprintf("%s fires at %s", row[r.Col("rule")], seconds(at)),
		fmt.Sprintf("%s after the incident's start; %s failed before", seconds(at-inc.FromMs),
			hypothesis.Plural(toInt(row[r.Col("failed_before")]), "request"))}, nil
}

// incidentPeaksVerdict: the busiest 100 ms and 1 s inside the incident,
// against the rest of the run.
func incidentPeaksVerdict(q store.Querier, e store.Experiment, o Options, inc analyze.Incident) ([]Value, error) {
	var parts, peaks []string
	for _, res := range []int64{100, 1000} {
		var in, out int64
		err := q.QueryRow(`SELECT coalesce(max(n) FILTER (WHERE inside), 0), coalesce(max(n) FILTER (WHERE NOT inside), 0) FROM (
			SELECT floor(t_ms / ?) AS k, (t_ms >= ? AND t_ms < ?) AS inside, sum(count) AS n
			FROM requests WHERE experiment = ? AND run = ? AND t_ms IS NOT NULL GROUP BY ALL)`,
			res, inc.FromMs, inc.UntilMs, e.Name, inc.Run).Scan(&in, &out)
		if err != nil {
			return nil, err
		}
		parts = append(parts, fmt.Sprintf("busiest %s: %d requests (outside it: %d)", analyze.ResolutionName(res), in, out))
		peaks = append(peaks, fmt.Sprintf("%d in %s", in, analyze.ResolutionName(res)))
	}
	return []Value{"peaks in the incident " + found, strings.Join(peaks, ", "), strings.Join(parts, "; ")}, nil
}
