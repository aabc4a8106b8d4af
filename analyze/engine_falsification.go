package analyze

// FalsificationOn is Falsification with the per-request work on r's engine:
// one step counts the experiment's runs (the sides and the checks); two
// judge both sides' windows (time or count windows, per group with --by)
// on the cluster, so only counts per threshold and group come back
// (engine_sweep.go), and the library's sweep finishes in DuckDB over them.
// Where a product of the judging could pass DECIMAL(38,0), the windows
// are pulled instead (engine_sides.go) and judged by the library.
// Any two sides (roles, or runs of this experiment or another), margins or
// thresholds, every metric, a split at a duration or at an event (read
// from the dataset's events by one step, splitEvent), --by columns,
// status_class and attrs keys (a key Spark cannot name or writes
// otherwise is refused).
func FalsificationOn(r *Remote, o FalsificationOptions) (*Result, error) {
	db := r.Querier()
	e, w, runs, err := r.hypothesisRuns(o.Hypothesis, o.Experiment, o.Window)
	if err != nil {
		return nil, err
	}
	metric := o.Hypothesis.MetricOrDefault()
	ths := o.Bounds
	if len(ths) == 0 {
		if ths, err = defaultSweep(metric, o.Margins); err != nil {
			return nil, err
		}
	}
	s, _, err := runs.sides(e, o.Hypothesis, !anyRelative(ths))
	if err != nil {
		return nil, err
	}
	if err := checkWindowMetric(metric, w); err != nil {
		return nil, err
	}
	eg, err := r.groupOn("falsification", db, e.Name, o.By)
	if err != nil {
		return nil, err
	}
	judged, err := r.sweepOn(e, s, w, ths, eg)
	if err != nil {
		return nil, err
	}
	if !judged {
		if err := r.hypWindows(e, s, w, eg); err != nil {
			return nil, err
		}
	}
	return falsificationSweep(db, e, w, ths, s, eg.g, o.Hypothesis)
}
