package report

import (
	"fmt"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

// The chaos experiment's sections: blast radius, falsification and
// stop-damage, each the result of the analysis function of the same name.

func blastSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	if ok, err := blastApplies(q, e, o); !ok || err != nil {
		return nil, err
	}
	r, err := o.blastRadius(q, analyze.BlastRadiusOptions{Experiment: e.Name, Planned: o.Planned})
	if err != nil {
		return nil, err
	}
	sec := &Section{
		Title: "Blast radius",
		Note: "Planned: requests in the experiment window whose user the plan tags. " +
			"Measured: requests the injection reached. Multiplier = measured / planned.",
		Tables: []Table{resultTable(r, "")},
	}
	if len(r.Rows) == 0 {
		return sec, nil
	}
	planned, measured := column(r, "planned")[0], column(r, "measured")[0]
	if planned != planned { // NaN: no plan
		sec.Note += o.say(" No plan is stored: give {planned} (a SQL boolean) to compare.")
	}
	sec.Charts = []Chart{{
		Title: "Planned vs measured", Kind: KindBar, XLabel: "blast radius", YLabel: "requests",
		XLabels: []string{"planned", "measured"},
		Series:  []Series{{Name: "requests", Key: o.roleKey("experiment"), X: []float64{0, 1}, Y: []float64{planned, measured}}},
	}}
	return sec, nil
}

// blastApplies reports whether the blast-radius section is shown: an
// experiment run, and a plan or tagged requests to measure against. Without
// either the table is all zeros and NULLs, so the verdict says why it is
// left out instead (blastVerdict).
func blastApplies(q store.Querier, e store.Experiment, o Options) (bool, error) {
	if ok, err := hasRoles(q, o, e.Name, "experiment"); !ok || err != nil {
		return false, err
	}
	if hasPlan(e, o) {
		return true, nil
	}
	return o.hasTags(q, e)
}

// hasPlan reports whether the report has a blast-radius plan: --planned or
// the stored 'planned'.
func hasPlan(e store.Experiment, o Options) bool {
	p, _ := e.Params["planned"].(string)
	return o.Planned != "" || p != ""
}

// windowed reports whether the falsification-based sections apply: a control
// and an experiment run, and a window size.
func windowed(q store.Querier, e store.Experiment, o Options) (bool, error) {
	if _, err := analyze.WindowFor(e, o.Window); err != nil {
		return false, nil
	}
	return hasRoles(q, o, e.Name, "control", "experiment")
}

func falsificationSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	if ok, err := windowed(q, e, o); !ok || err != nil {
		return nil, err
	}
	r, err := o.falsification(q, analyze.FalsificationOptions{Experiment: e.Name, Window: o.Window})
	if err != nil {
		return nil, err
	}
	margins := column(r, "margin")
	for i := range margins {
		margins[i] *= 100
	}
	return &Section{
		Title: "Falsification sweep",
		Note: "Hypothesis: every window keeps an ok share of at least baseline − margin. " +
			"Falsified control windows are false alarms; falsified experiment windows are detections.",
		Tables: []Table{resultTable(r, "")},
		Charts: []Chart{{
			Title: "False alarms vs detections per margin", XLabel: "margin (%)", YLabel: "falsified windows",
			Series: []Series{
				{Name: "false alarms (control)", Key: o.roleKey("control"), X: margins, Y: column(r, "control_falsified")},
				{Name: "detections (experiment)", Key: o.roleKey("experiment"), X: margins, Y: column(r, "experiment_falsified")},
			},
		}},
	}, nil
}

func stopDamageSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	if ok, err := windowed(q, e, o); !ok || err != nil {
		return nil, err
	}
	so := analyze.StopDamageOptions{Experiment: e.Name, Window: o.Window, Margin: o.Margin, MarginSet: true}
	judged := fmt.Sprintf("margin %s", analyze.Human(o.Margin, "share"))
	if o.custom() { // the flags' hypothesis, as the verdict and the timeline judge it
		th, err := o.threshold(e)
		if err != nil {
			return nil, err
		}
		so.Hypothesis, so.Bound = o.Hypothesis, &th
		judged = th.Describe(o.Hypothesis.MetricOrDefault())
	}
	r, err := o.stopDamage(q, so)
	if err != nil {
		return nil, err
	}
	chart := Chart{
		Title: "Damage until the stop", Kind: KindBar, XLabel: "k (consecutive falsified windows)",
		YLabel: "requests", Series: []Series{{Name: "damage until stop", Key: o.roleKey("experiment"),
			X: column(r, "k"), Y: column(r, "damage_until_stop")}},
	}
	if total := column(r, "total_damage"); len(total) > 0 {
		chart.HLines = []Line{{Label: "total damage", Y: total[0]}}
	}
	return &Section{
		Title: "Stop-damage",
		Note: fmt.Sprintf("Stop at the first window that completes k consecutive falsified windows (%s): "+
			"%s until then.", judged, damageNoun(taggedLog(q, e, o))),
		Tables: []Table{resultTable(r, "")},
		Charts: []Chart{chart},
	}, nil
}
