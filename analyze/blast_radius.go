package analyze

import (
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// BlastRadiusOptions steer BlastRadius. Zero values take the experiment's
// stored parameters: "planned" (a SQL predicate) and "start".
type BlastRadiusOptions struct {
	Experiment string
	Planned    string // SQL boolean over the request columns, e.g. tag_hash(20260731, req) < 0.05
	Start      int64  // position in the experiment run where the experiment starts
	StartSet   bool
}

// start is the position the experiment starts at: the one given, or the
// experiment's stored start.
func (o BlastRadiusOptions) start(e store.Experiment) (int64, error) {
	if o.StartSet {
		if o.Start < 0 {
			return 0, param.Errorf("start", "{start} %d: want a request position of 0 or more", o.Start)
		}
		return o.Start, nil
	}
	if s, ok := e.Number("start"); ok {
		return int64(s), nil
	}
	return o.Start, nil
}

// BlastRadius compares the planned blast radius with the measured one.
func BlastRadius(db store.Querier, o BlastRadiusOptions) (*Result, error) {
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, err
	}
	start, err := o.start(e)
	if err != nil {
		return nil, err
	}
	pred, stored := o.Planned, false
	if pred == "" {
		pred, _ = e.Text("planned")
		stored = true
	}
	var planned any // NULL when there is no plan: multiplier stays NULL
	if pred != "" {
		n, err := plannedCount(db, pred, stored, e, start)
		if err != nil {
			return nil, err
		}
		planned = n
	}
	return Query(db, "blast-radius", store.Units("blast_radius"), `SELECT * FROM blast_radius(?, ?, ?)`, e.Name, start, planned)
}
