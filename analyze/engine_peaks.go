package analyze

import (
	"cmp"
	"math"
	"strings"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// PeaksOn is Peaks with the per-request work on r's engine: one reduce
// step for the aligned buckets (each run's buckets at each resolution
// summed, bucket k of res holding floor(t_ms / res) = k, as in
// _aligned_peaks, and per run and resolution the fullest bucket, the
// earliest of equals, and the total; one row per run and resolution comes
// back) and, with Sliding, one for the sliding windows (slidingStep). With
// Sliding, TEMP macros of _aligned_peaks and _sliding_peaks read those
// rows and the library's peaks finishes. --by is refused.
func PeaksOn(r *Remote, o PeaksOptions) (*Result, error) {
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
	var out *Result
	if o.Sliding {
		out, err = r.slidingPeaks(e.Name, res)
	} else {
		out, err = Query(db, "peaks", store.Units("peaks"), `
SELECT run, res AS resolution_ms, peak, k * res AS peak_at_ms, total FROM _peak_runs ORDER BY run, resolution_ms`)
	}
	if out != nil && note != nil {
		out.Notes = append(out.Notes, note)
	}
	return out, err
}

// slidingPeaks runs the sliding windows' step over exp's rows at the
// resolutions res, and the library's peaks over it and the aligned step's
// rows (_peak_runs), through TEMP macros of _aligned_peaks and
// _sliding_peaks that read them (for these arguments only: a call with
// others raises an error). The aligned peaks all come from the aligned
// step: the shadowed _sliding_peaks rolls none up.
func (r *Remote) slidingPeaks(exp string, res []int64) (*Result, error) {
	if err := r.reduce("_remote_sliding", "run VARCHAR, res BIGINT, n BIGINT, t_ms DOUBLE", slidingStep(exp, res)); err != nil {
		return nil, err
	}
	list := bigintList(res)
	check := `exp IS DISTINCT FROM ` + sqllit.String(exp) + ` OR key IS DISTINCT FROM true OR resolutions_ms::BIGINT[] IS DISTINCT FROM ` + list
	other := ` THEN error('peaks: the engine''s rows were computed for other arguments') ELSE true END`
	for _, q := range []string{
		`CREATE OR REPLACE TEMP MACRO _aligned_peaks(exp, key, resolutions_ms, done) AS TABLE
    SELECT run, true AS gk, res, peak, k * res AS peak_at_ms, total FROM _peak_runs
    WHERE NOT list_contains(done, res) AND CASE WHEN ` + check + other,
		`CREATE OR REPLACE TEMP MACRO _sliding_peaks(exp, key, resolutions_ms, sliding) AS TABLE
    SELECT run, true AS gk, res, n, t_ms, NULL::BIGINT AS peak, NULL::BIGINT AS peak_at_ms, NULL::BIGINT AS total
    FROM _remote_sliding
    WHERE CASE WHEN ` + check + ` OR sliding IS DISTINCT FROM true` + other,
	} {
		if _, err := r.db.ExecContext(r.ctx, q); err != nil {
			return nil, err
		}
	}
	return Query(r.Querier(), "peaks", store.Units("peaks"), `SELECT run, resolution_ms, peak, peak_at_ms, total, sliding_peak, sliding_at_ms FROM peaks(?, `+list+`, sliding := true)`, exp)
}

// slidingStep is the sliding windows' reduce step: per run and resolution
// the fullest window [t, t + res) from a row's t_ms, and the earliest t of
// equals (_sliding_peaks's n and t_ms); one row per run and resolution
// comes back. The rows are summed per (run, t_ms) first. Time is cut into
// buckets of g ms, the smallest power of two not below res: bucket k is
// exactly [k g, (k + 1) g) (a division by a power of two is exact), and a
// window from a t in bucket k ends at t + res (rounded, monotonically)
// <= (k + 2) g, so it holds only rows of buckets k and k + 1. Each point
// is read in its own bucket's partition, as a start, and in the one
// before, and a window's count is a RANGE frame over (run, bucket)
// partitions only: [t, t + res] less the points at t + res exactly (the
// same IEEE sum as the local t_ms + res). The earliest fullest start per
// run is a min over (-count, t), an aggregate rather than a window over
// the run's rows.
func slidingStep(exp string, res []int64) string {
	parts := make([]string, len(res))
	for i, x := range res {
		g := engine.Double(math.Pow(2, math.Ceil(math.Log2(float64(x)))))
		rd := engine.Double(float64(x))
		parts[i] = `SELECT run, ` + engine.Int(x) + ` AS res, -m.neg_n AS n, m.t AS t_ms
FROM (SELECT run, min(named_struct('neg_n', -n, 't', t_ms)) AS m
      FROM (SELECT run, t_ms, start,
                   sum(n) OVER (PARTITION BY run, part ORDER BY t_ms RANGE BETWEEN CURRENT ROW AND ` + rd + ` FOLLOWING)
                   - coalesce(sum(n) OVER (PARTITION BY run, part ORDER BY t_ms RANGE BETWEEN ` + rd + ` FOLLOWING AND ` + rd + ` FOLLOWING), 0L) AS n
            FROM (SELECT run, t_ms, n, CAST(floor(t_ms / ` + g + `) AS BIGINT) AS part, true AS start FROM pt
                  UNION ALL
                  SELECT run, t_ms, n, CAST(floor(t_ms / ` + g + `) AS BIGINT) - 1L, false FROM pt))
      WHERE start
      GROUP BY run) s`
	}
	return `WITH pt AS (SELECT run, t_ms, sum(count) AS n FROM requests
            WHERE experiment = ` + engine.String(exp) + ` AND t_ms IS NOT NULL GROUP BY run, t_ms)
` + strings.Join(parts, "\nUNION ALL\n")
}
