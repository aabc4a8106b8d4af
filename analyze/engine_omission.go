package analyze

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// OmissionOn is Omission with the per-request work on r's engine: for
// HdrHistogram's back-fill with a given expected interval one reduce step
// counts each run's requests per recorded latency in µs (_om_hist), the
// back-fill's levels and rank picks are the library's, in DuckDB; for a
// constant-rate schedule (--rate, or Vegeta's inferred) see scheduleOn;
// with the interval derived per run (--closed-loop), see
// omissionExpected. Refused: k6's dropped iterations (events) and
// --requests (a row per request); a log that cannot tell is refused as
// locally.
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
		if err := r.omissionHist(e.Name); err != nil {
			return nil, nil, err
		}
		if err := r.omissionExpected(e.Name); err != nil {
			return nil, nil, err
		}
		res, err := backfill(db, e.Name, o)
		return res, nil, err
	}
	src, err := omissionSource(db, e.Name) // the files are in memory; no k6 file, no dropped iterations
	if err != nil {
		return nil, nil, err
	}
	if o.Interval.IsZero() && !src.vegeta {
		if src.k6 {
			return nil, nil, r.NotOnEngine("omission of k6's dropped iterations", "they are k6 points, events, and omission has no reduce steps over the events' points yet; give {rate} N/DURATION for a constant-rate schedule numbered by req")
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

// omissionExpected derives each run's expected interval on the engine, as
// _om_expected: the median (the nearest rank, the lower median) of the gaps
// between consecutive starts (in µs) of one client_id, of the run when
// client_id is NULL, in (t_ms, seq) order. The rows are cut into blocks of
// 2^20 µs of start (a partition per (run, client_id, block): a run
// without client_id is not one task): a gap inside a block is lag()'s
// there, and a block's first row's gap is its first start less the last
// start of the client's previous block with a row (a window over the
// blocks' aggregates). The median is picked by pickRanks; the in-memory
// _om_expected reads it.
func (r *Remote) omissionExpected(exp string) error {
	src := `
WITH b AS (
    SELECT run, client_id, seq, t_ms, s, shiftright(s, 20) AS blk
    FROM (SELECT run, client_id, seq, t_ms, CAST(round(t_ms * 1000D) AS BIGINT) AS s FROM requests
          WHERE experiment = ` + engine.String(exp) + ` AND t_ms IS NOT NULL)
),
inside AS (SELECT run, s - lag(s) OVER (PARTITION BY run, client_id, blk ORDER BY t_ms, seq) AS v FROM b),
blocks AS (SELECT run, client_id, blk, min(s) AS lo, max(s) AS hi FROM b GROUP BY run, client_id, blk),
across AS (SELECT run, lo - lag(hi) OVER (PARTITION BY run, client_id ORDER BY blk) AS v FROM blocks)
SELECT run, 0 AS k, v, 1L AS c FROM inside WHERE v IS NOT NULL
UNION ALL
SELECT run, 0 AS k, v, 1L AS c FROM across WHERE v IS NOT NULL`
	picks, err := r.pickRanks("_remote_om_expected", src, []int64{500})
	if err != nil {
		return err
	}
	var vals []string
	for key, p := range picks {
		vals = append(vals, "("+sqllit.String(key.run)+", "+strconv.FormatInt(p.v[0], 10)+")")
	}
	slices.Sort(vals)
	table := `SELECT NULL::VARCHAR AS run, NULL::BIGINT AS e WHERE false`
	if len(vals) > 0 {
		table = `SELECT run, e::BIGINT AS e FROM (VALUES ` + strings.Join(vals, ", ") + `) v(run, e)`
	}
	if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE _remote_om_expected AS `+table); err != nil {
		return err
	}
	_, err = r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO _om_expected(exp, interval_us) AS TABLE
    SELECT run, e, true AS derived FROM _remote_om_expected
    WHERE CASE WHEN exp IS DISTINCT FROM `+sqllit.String(exp)+` OR interval_us IS NOT NULL
               THEN error('_om_expected: the engine''s intervals were derived for other arguments') ELSE true END`)
	return err
}
