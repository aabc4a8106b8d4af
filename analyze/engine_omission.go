package analyze

import (
	"time"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// OmissionOn is Omission with the per-request work on r's engine: for
// HdrHistogram's back-fill with a given expected interval one reduce step
// counts each run's requests per recorded latency in µs (_om_hist), the
// back-fill's levels and rank picks are the library's, in DuckDB; for a
// constant-rate schedule (--rate, or Vegeta's inferred) see scheduleOn.
// Refused: the back-fill with the interval derived per run
// (--closed-loop), k6's dropped iterations (events) and --requests (a row
// per request); a log that cannot tell is refused as locally.
func OmissionOn(r *Remote, o OmissionOptions) (main, windows *Result, err error) {
	db := r.Querier()
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, nil, err
	}
	if o.Window == 0 {
		o.Window = time.Second
	}
	switch {
	case o.Expected > 0:
		if o.Expected%time.Microsecond == 0 {
			if err := r.omissionHist(e.Name); err != nil {
				return nil, nil, err
			}
		}
		res, err := backfill(db, e.Name, o)
		return res, nil, err
	case o.ClosedLoop:
		return nil, nil, r.NotOnEngine("omission with {closed-loop}", "the expected interval derived per run is the median gap between consecutive starts of one client_id, which needs each (run, client_id) sorted by t_ms: one task per run on the engine; give {expected-interval} DURATION")
	}
	src, err := omissionSource(db, e.Name) // the files are in memory; no k6 file, no dropped iterations
	if err != nil {
		return nil, nil, err
	}
	if o.Interval.IsZero() && !src.vegeta {
		if src.k6 {
			return nil, nil, r.NotOnEngine("omission of k6's dropped iterations", "they are k6 points, events, and the dataset's events are not read on the engine; give {rate} N/DURATION for a constant-rate schedule numbered by req")
		}
		return nil, nil, src.cannotTell(e.Name)
	}
	return r.scheduleOn(e.Name, o, src)
}

// omissionHist runs _om_hist's step (requests per run and µs latency: one
// row per distinct latency of a run comes back) and makes the in-memory
// database's _om_hist read it, for exp only.
func (r *Remote) omissionHist(exp string) error {
	if err := r.reduce("_remote_om_hist", "run VARCHAR, v BIGINT, c HUGEINT", `
SELECT run, CAST(round(latency_ms * 1000D) AS BIGINT) AS v, sum(CAST(count AS DECIMAL(38,0))) AS c
FROM requests WHERE experiment = `+engine.String(exp)+` AND latency_ms IS NOT NULL
GROUP BY run, CAST(round(latency_ms * 1000D) AS BIGINT)`); err != nil {
		return err
	}
	_, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO _om_hist(exp) AS TABLE
    SELECT * FROM _remote_om_hist
    WHERE CASE WHEN exp IS DISTINCT FROM `+sqllit.String(exp)+`
               THEN error('_om_hist: the engine''s counts were computed for another experiment') ELSE true END`)
	return err
}
