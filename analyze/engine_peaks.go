package analyze

import (
	"cmp"
	"strings"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// PeaksOn is Peaks (aligned buckets) with the per-request work on r's
// engine in one reduce step: each run's buckets at each resolution summed
// (bucket k of res holds floor(t_ms / res) = k, as in _aligned_peaks) and,
// per run and resolution, the fullest bucket (the earliest of equals) and
// the total; one row per run and resolution comes back. Sliding windows
// and --by are refused.
func PeaksOn(r *Remote, o PeaksOptions) (*Result, error) {
	if o.Sliding {
		return nil, r.NotOnEngine("peaks with sliding windows", "the sliding pass's bucket bounds and running sums have no reduce steps")
	}
	if len(o.By) > 0 {
		return nil, r.NotOnEngine("peaks by group", "the groups have no reduce steps")
	}
	db := r.Querier()
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, err
	}
	res, err := resolutions(o.ResolutionsMs)
	var note *param.Error
	if err == nil {
		res, note, err = finerThanData(db, e.Name, res)
	}
	if err != nil {
		// locally an experiment without times is refused before its
		// resolutions are read: that refusal first here too
		if timed, terr := r.timed(e.Name); terr != nil || !timed {
			return nil, cmp.Or(terr, noTimesError(e.Name))
		}
		return nil, err
	}
	lits := make([]string, len(res))
	for i, x := range res {
		lits[i] = engine.Int(x)
	}
	err = r.reduce("_peak_runs", "run VARCHAR, res BIGINT, peak BIGINT, k BIGINT, total BIGINT", `
SELECT run, res, n AS peak, k, total
FROM (SELECT run, res, k, n, sum(n) OVER (PARTITION BY run, res) AS total,
             row_number() OVER (PARTITION BY run, res ORDER BY n DESC, k) AS rn
      FROM (SELECT q.run, rs.res, CAST(floor(q.t_ms / rs.res) AS BIGINT) AS k, sum(q.count) AS n
            FROM requests q CROSS JOIN (SELECT explode(array(`+strings.Join(lits, ", ")+`)) AS res) rs
            WHERE q.experiment = `+engine.String(e.Name)+` AND q.t_ms IS NOT NULL
            GROUP BY q.run, rs.res, CAST(floor(q.t_ms / rs.res) AS BIGINT)))
WHERE rn = 1`)
	if err != nil {
		return nil, err
	}
	var timed bool
	if err := db.QueryRow(`SELECT count(*) > 0 FROM _peak_runs`).Scan(&timed); err != nil {
		return nil, err
	}
	if !timed {
		return nil, noTimesError(e.Name)
	}
	out, err := Query(db, "peaks", store.Units("peaks"), `
SELECT run, res AS resolution_ms, peak, k * res AS peak_at_ms, total FROM _peak_runs ORDER BY run, resolution_ms`)
	if out != nil && note != nil {
		out.Notes = append(out.Notes, note)
	}
	return out, err
}
