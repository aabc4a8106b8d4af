package analyze

import (
	"cmp"
	"fmt"
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
// --by, the group's fields are computed on the cluster and are one more
// key of each step (engine_by.go). With Sliding or --by, TEMP macros of
// _aligned_peaks and _sliding_peaks read those rows and the library's
// peaks finishes.
func PeaksOn(r *Remote, o PeaksOptions) (*Result, error) {
	db := r.Querier()
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, err
	}
	eg, err := r.groupOn("peaks", db, e.Name, o.By)
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
	keys := eg.keys()
	err = r.reduce("_peak_runs", "run VARCHAR"+eg.cols()+", res BIGINT, peak BIGINT, k BIGINT, total BIGINT", `
SELECT run`+keys+`, res, n AS peak, k, total
FROM (SELECT run`+keys+`, res, k, n, sum(n) OVER (PARTITION BY run`+keys+`, res) AS total,
             row_number() OVER (PARTITION BY run`+keys+`, res ORDER BY n DESC, k) AS rn
      FROM (SELECT q.run`+qualified(keys)+`, rs.res, CAST(floor(q.t_ms / rs.res) AS BIGINT) AS k, sum(q.count) AS n
            FROM (SELECT run, t_ms, count`+eg.sel()+` FROM requests
                  WHERE experiment = `+engine.String(e.Name)+` AND t_ms IS NOT NULL) q
            CROSS JOIN (SELECT explode(array(`+strings.Join(lits, ", ")+`)) AS res) rs
            GROUP BY q.run`+qualified(keys)+`, rs.res, CAST(floor(q.t_ms / rs.res) AS BIGINT)))
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
	if o.Sliding || len(o.By) > 0 {
		out, err = r.libraryPeaks(e.Name, eg, res, o.Sliding)
	} else {
		out, err = Query(db, "peaks", store.Units("peaks"), `
SELECT run, res AS resolution_ms, peak, k * res AS peak_at_ms, total FROM _peak_runs ORDER BY run, resolution_ms`)
	}
	if out != nil && note != nil {
		out.Notes = append(out.Notes, note)
	}
	return out, err
}

// qualified is keys (", g0, g1") with the prefix q.
func qualified(keys string) string { return strings.ReplaceAll(keys, ", g", ", q.g") }

// libraryPeaks runs, with sliding, the sliding windows' step over exp's
// rows at the resolutions res, and the library's peaks over it and the
// aligned step's rows (_peak_runs), through TEMP macros of _aligned_peaks
// and _sliding_peaks that read them (for these arguments only: a call
// with others raises an error; without sliding, _sliding_peaks has no
// rows). The aligned peaks all come from the aligned step: the shadowed
// _sliding_peaks rolls none up.
func (r *Remote) libraryPeaks(exp string, eg engineGroup, res []int64, sliding bool) (*Result, error) {
	none := " AND false"
	if sliding {
		none = ""
		if err := r.reduce("_remote_sliding", "run VARCHAR"+eg.cols()+", res BIGINT, n BIGINT, t_ms DOUBLE", slidingStep(exp, eg, res)); err != nil {
			return nil, err
		}
	} else if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE _remote_sliding AS
SELECT * EXCLUDE (peak, k, total), NULL::BIGINT AS n, NULL::DOUBLE AS t_ms FROM _peak_runs WHERE false`); err != nil {
		return nil, err
	}
	list := bigintList(res)
	check := `exp IS DISTINCT FROM ` + sqllit.String(exp) + ` OR resolutions_ms::BIGINT[] IS DISTINCT FROM ` + list
	if len(eg.fields) == 0 {
		check += ` OR key IS DISTINCT FROM true`
	}
	other := ` THEN error('peaks: the engine''s rows were computed for other arguments') ELSE true END`
	for _, q := range []string{
		`CREATE OR REPLACE TEMP MACRO _aligned_peaks(exp, key, resolutions_ms, done) AS TABLE
    SELECT run, ` + eg.gk() + ` AS gk, res, peak, k * res AS peak_at_ms, total FROM _peak_runs
    WHERE NOT list_contains(done, res) AND CASE WHEN ` + check + other,
		`CREATE OR REPLACE TEMP MACRO _sliding_peaks(exp, key, resolutions_ms, sliding) AS TABLE
    SELECT run, ` + eg.gk() + ` AS gk, res, n, t_ms, NULL::BIGINT AS peak, NULL::BIGINT AS peak_at_ms, NULL::BIGINT AS total
    FROM _remote_sliding
    WHERE CASE WHEN ` + check + ` OR sliding IS DISTINCT FROM ` + fmt.Sprint(sliding) + other + none,
	} {
		if _, err := r.db.ExecContext(r.ctx, q); err != nil {
			return nil, err
		}
	}
	return peaksQuery(r.Querier(), exp, eg.g, res, sliding)
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
// before, and every window is over (run, bucket) partitions only. A
// window's count is a difference of prefix sums, each a running sum over
// ROWS UNBOUNDED PRECEDING, which Spark adds up row by row (a RANGE frame
// with two moving bounds is summed again from its lower bound at every
// row: minutes at 1 M rows). The first pass gives each start base, the
// points' sum before it; the second reads the points with one probe per
// start at t + res (the same IEEE sum as the local t_ms + res), a probe
// before a point at the same time, so that its running sum is the points'
// sum before t + res, and the window's count is that less base. The
// earliest fullest start per run is a min over (-count, t), an aggregate
// rather than a window over the run's rows.
func slidingStep(exp string, eg engineGroup, res []int64) string {
	keys := eg.keys()
	// each point once per resolution as a start in its bucket and once in
	// the bucket before (d = 1): one generator over one read of pt, since
	// Spark inlines a CTE into each of its references (eight scans and
	// sums of the rows at two resolutions, issue 36)
	var copies []string
	for _, x := range res {
		g := engine.Double(math.Pow(2, math.Ceil(math.Log2(float64(x)))))
		for d := int64(0); d < 2; d++ {
			copies = append(copies, `named_struct('res', `+engine.Int(x)+`, 'g', `+g+`, 'rd', `+engine.Double(float64(x))+`, 'd', `+engine.Int(d)+`)`)
		}
	}
	by := `run` + keys + `, res, part`
	point := func(x, n, probe, base string) string {
		return `named_struct('x', ` + x + `, 'n', ` + n + `, 'probe', ` + probe + `, 'base', ` + base + `)`
	}
	return `WITH pt AS (SELECT run` + keys + `, t_ms, sum(count) AS n
            FROM (SELECT run, t_ms, count` + eg.sel() + ` FROM requests
                  WHERE experiment = ` + engine.String(exp) + ` AND t_ms IS NOT NULL)
            GROUP BY run` + keys + `, t_ms),
b AS (SELECT run` + keys + `, res, rd, part, t_ms, n, start,
             sum(n) OVER (PARTITION BY ` + by + ` ORDER BY t_ms ROWS UNBOUNDED PRECEDING) - n AS base
      FROM (SELECT run` + keys + `, t_ms, n, e.res, e.rd, CAST(floor(t_ms / e.g) AS BIGINT) - e.d AS part, e.d = 0L AS start
            FROM pt LATERAL VIEW inline(array(` + strings.Join(copies, ", ") + `)) e)),
s AS (SELECT run` + keys + `, res, t_ms, probe,
             sum(n) OVER (PARTITION BY ` + by + ` ORDER BY x, probe DESC ROWS UNBOUNDED PRECEDING) - base AS n
      FROM (SELECT run` + keys + `, res, part, t_ms, p.x, p.n, p.probe, p.base
            FROM b LATERAL VIEW inline(CASE WHEN start
                THEN array(` + point("t_ms", "n", "false", "0L") + `, ` + point("t_ms + rd", "0L", "true", "base") + `)
                ELSE array(` + point("t_ms", "n", "false", "0L") + `) END) p))
SELECT run` + keys + `, res, -m.neg_n AS n, m.t AS t_ms
FROM (SELECT run` + keys + `, res, min(named_struct('neg_n', -n, 't', t_ms)) AS m
      FROM s WHERE probe GROUP BY run` + keys + `, res) q`
}
