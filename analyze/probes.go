package analyze

import (
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// ProbesOptions steer Probes.
type ProbesOptions struct {
	Experiment string
}

// Probes summarises each health-probe setting of a probes experiment (the
// log rewind sim probes writes): restarts and how many were needless,
// replicas in a restart loop, failed requests, mean healthy replicas per
// round and how many rounds stuck replicas went unnoticed.
func Probes(db store.Querier, o ProbesOptions) (*Result, error) {
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, err
	}
	// Without the round count the mean over rounds has no denominator, and
	// a log without state events is not a probes log at all: say so rather
	// than print a table of zeros.
	if _, ok := e.Number("rounds"); !ok {
		return nil, param.Errorf("out", "experiment %q has no param rounds: not a probes log (write one with rewind sim probes {out} FILE)", e.Name)
	}
	var states int64
	if err := db.QueryRow(`SELECT count(*) FROM events WHERE experiment = ? AND type = 'state'`, e.Name).Scan(&states); err != nil {
		return nil, err
	}
	if states == 0 {
		return nil, param.Errorf("out", "experiment %q has no state events: not a probes log (write one with rewind sim probes {out} FILE)", e.Name)
	}
	return Query(db, "probes", store.Units("probes"), `SELECT * FROM probes(?)`, e.Name)
}
