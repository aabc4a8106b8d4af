package report

import (
	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// The retry sections: amplification (calls that retries added) and retries
// (strategies compared), the results of `rewind analyze amplification` and
// `rewind analyze retries`.

func amplificationSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	// Amplification reads any log, but without a retry it only says 1.00×.
	var retried int64
	var err error
	if o.remote != nil {
		retried, err = runTotal(q, "retried", "true")
	} else {
		err = q.QueryRow(`SELECT count(*) FROM requests WHERE experiment = ? AND (attempt > 0 OR retried)`, e.Name).Scan(&retried)
	}
	if err != nil {
		return nil, err
	}
	if retried == 0 {
		return nil, nil
	}
	r, err := o.amplification(q, analyze.AmplificationOptions{Experiment: e.Name})
	if err != nil {
		return nil, err
	}
	sec := &Section{
		Title:  "Amplification",
		Note:   "Calls per run against the requests that caused them (multiplier = calls / requests); per tick and in the fault window where the log stores them.",
		Tables: []Table{resultTable(r, "")},
	}
	if len(r.Rows) > 1 {
		labels := make([]string, len(r.Rows))
		x := make([]float64, len(r.Rows))
		for i, row := range r.Rows {
			labels[i], x[i] = FormatValue(row[r.Col("run")]), float64(i)
		}
		sec.Charts = []Chart{{Title: "Multiplier per run", Kind: KindBar, XLabel: "run", YLabel: "calls / request",
			XLabels: labels, XKeys: true, Series: []Series{{Name: "multiplier", X: x, Y: column(r, "multiplier")}}}}
	}
	return sec, nil
}

func retriesSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	if _, err := analyze.AffectedSpan(e, hypothesis.Span{}); err != nil {
		return nil, nil // no stored affected interval: not a retry experiment
	}
	r, err := o.retries(q, analyze.RetriesOptions{Experiment: e.Name})
	if err != nil {
		return nil, err
	}
	return &Section{
		Title:  "Retries",
		Note:   "Retry strategies side by side: attempts sent, retries, retries the budget refused, and how the operations that started in the affected interval fared.",
		Tables: []Table{resultTable(r, "")},
	}, nil
}
