package analyze

// StopDamageOn is StopDamage with the per-request work on r's engine: the
// runs are the reduce step of FalsificationOn (engine_sides.go), whether
// the treatment side has tagged requests is read from it, and the
// experiment side's windows are judged and their streaks found on the
// engine, in blocks (engine_streaks.go); stop_damage finishes in DuckDB.
// Past the judging's bounds, or with o.Windows, both sides' windows are
// pulled and the library's streaks run over them. The sides, metrics,
// splits and groups of FalsificationOn, and its
// refusals; with --by, the experiment's groups are counted (the limit of
// checkStopDamageGroups) and listed by two more steps (engine_sides_by.go).
func StopDamageOn(r *Remote, o StopDamageOptions) (*Result, error) {
	db := r.Querier()
	e, w, runs, err := r.hypothesisRuns(o.Hypothesis, o.Experiment, o.Window)
	if err != nil {
		return nil, err
	}
	metric := o.Hypothesis.MetricOrDefault()
	th, err := o.threshold(e, metric)
	if err != nil {
		return nil, err
	}
	s, tagged, err := runs.sides(e, o.Hypothesis, !th.Relative())
	if err != nil {
		return nil, err
	}
	if err := checkWindowMetric(metric, w); err != nil {
		return nil, err
	}
	ks, err := stopKs(o.Ks)
	if err != nil {
		return nil, err
	}
	f, a, err := th.Millionths()
	if err != nil {
		return nil, err
	}
	eg, err := r.groupOn("stop-damage", db, e.Name, o.By)
	if err != nil {
		return nil, err
	}
	if len(o.By) > 0 {
		if err := r.checkStopGroups(e.Name, eg, o.By); err != nil {
			return nil, err
		}
	}
	if len(o.By) > 0 {
		if err := r.stopGroups(e, s, eg); err != nil {
			return nil, err
		}
	}
	// the library's _streaks, not a former call's shadow
	if err := r.restoreStreaks(); err != nil {
		return nil, err
	}
	judged := false
	if !o.Windows {
		if judged, err = r.streaksOn(e, s, w, th, stopKSet(o.Ks), eg); err != nil {
			return nil, err
		}
	}
	if !judged {
		if err := r.hypWindows(e, s, w, eg); err != nil {
			return nil, err
		}
	}
	return stopDamageOf(db, e, w, s, th, f, a, ks, eg.g, o.Hypothesis, func() (bool, error) { return tagged, nil })
}
