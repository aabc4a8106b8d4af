package analyze

import (
	"database/sql"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/internal/sqllit"
)

// scheduleOn is checkedSchedule with the per-request work on r's engine:
// _om_runs (what the rows hold for a schedule, and each run's median gap
// when the interval is inferred), _om_picks (per run t0 and the quantiles
// of the latency, the corrected latency and the lag) and _om_window_sums
// (per run and window) are TEMP macros over reduce steps' rows, so
// omission and omission_windows are the library's own SQL. A quantile
// ranks values distinct per request, so it is picked in passes that each
// bring back bounded counts (pickRanks).
func (r *Remote) scheduleOn(exp string, o OmissionOptions, src omissionSrc) (*Result, *Result, error) {
	infer := o.Interval.IsZero()
	if err := r.omissionRuns(exp, infer); err != nil {
		return nil, nil, err
	}
	db := r.Querier()
	src.remote = true
	if err := src.readRuns(db, exp, infer); err != nil {
		return nil, nil, err
	}
	if err := src.checkSchedule(exp); err != nil {
		return nil, nil, err
	}
	// checkExpansion's total came with the runs' step: its own steps run
	// only to name the largest row past the limit
	var expanded sql.NullFloat64
	if err := r.db.QueryRowContext(r.ctx, `SELECT sum(expanded)::DOUBLE FROM _remote_om_runs`).Scan(&expanded); err != nil {
		return nil, nil, err
	}
	if expanded.Valid && expanded.Float64 > maxExpanded {
		if err := r.checkExpansion(exp, "omission"); err != nil {
			return nil, nil, err
		}
	}
	if infer && src.noInterval != "" {
		return schedule(db, exp, o, src) // refuses the rate before it reads a step
	}
	if o.Requests {
		return nil, nil, r.NotOnEngine("omission with {requests}", "it prints one row per request, not an aggregate")
	}
	if err := r.omissionSteps(exp, o); err != nil {
		return nil, nil, err
	}
	return schedule(db, exp, o, src)
}

// omRows is the engine's _om_rows of exp (run, n, start_us, lat_us,
// count) with each row's interval num / den us: o's, or with o's zero the
// runs' median gaps read from _remote_om_runs.
func (r *Remote) omRows(exp string, o OmissionOptions) (string, error) {
	sel := `SELECT q.run, q.req AS n, CAST(round(q.t_ms * 1000D) AS BIGINT) AS start_us,
       CAST(round(q.latency_ms * 1000D) AS BIGINT) AS lat_us, CAST(q.count AS BIGINT) AS count, `
	where := ` WHERE q.experiment = ` + engine.String(exp) + ` AND q.t_ms IS NOT NULL AND q.req IS NOT NULL`
	if !o.Interval.IsZero() {
		return sel + engine.Int(o.Interval.Num) + ` AS num, ` + engine.Int(o.Interval.Den) + ` AS den FROM requests q` + where, nil
	}
	rows, err := r.db.QueryContext(r.ctx, `SELECT run, gap_us FROM _remote_om_runs WHERE gap_us > 0 ORDER BY run`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var vals []string
	for rows.Next() {
		var run string
		var gap int64
		if err := rows.Scan(&run, &gap); err != nil {
			return "", err
		}
		vals = append(vals, "("+engine.String(run)+", "+engine.Int(gap)+")")
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if len(vals) == 0 {
		return sel + `i.num, 1L AS den FROM requests q JOIN (SELECT '' AS run, 0L AS num WHERE false) i ON q.run = i.run` + where, nil
	}
	return sel + `i.num, 1L AS den FROM requests q JOIN VALUES ` + strings.Join(vals, ", ") + ` AS i(run, num) ON q.run = i.run` + where, nil
}

// omissionRuns runs _om_runs's steps: per run the rows, those with a
// numeric req, with a start, the req missing between the first and the
// last (and the sum of count over rows with count > 1, checkExpansion's);
// with infer, the median (the nearest rank, the lower median) of the
// gaps start(n) - start(n - 1) over consecutive req, a gap being the first
// start of req n less the last of n - 1 (the rows in (n, start) order,
// as the local lag() reads them), picked by pickRanks. The in-memory
// _om_runs reads them.
func (r *Remote) omissionRuns(exp string, infer bool) error {
	lit := engine.String(exp)
	if err := r.reduce("_remote_om_runs0", "run VARCHAR, rows BIGINT, with_req BIGINT, with_t BIGINT, missing BIGINT, first_req BIGINT, last_req BIGINT, expanded HUGEINT", `
SELECT run, count(*) AS rows, count_if(req IS NOT NULL AND req_text IS NULL) AS with_req, count(t_ms) AS with_t,
       coalesce(max(req) - min(req) + 1 - count(req), 0L) AS missing, min(req) AS first_req, max(req) AS last_req,
       sum(CASE WHEN count > 1 THEN CAST(count AS DECIMAL(38,0)) END) AS expanded
FROM requests WHERE experiment = `+lit+` GROUP BY run`); err != nil {
		return err
	}
	gaps := map[string]int64{}
	if infer {
		src := `
WITH g AS (
    SELECT run, req, min(s) AS lo, max(s) AS hi
    FROM (SELECT run, req, CAST(round(t_ms * 1000D) AS BIGINT) AS s FROM requests
          WHERE experiment = ` + lit + ` AND t_ms IS NOT NULL AND req IS NOT NULL)
    GROUP BY run, req
)
SELECT b.run, 0 AS k, b.lo - a.hi AS v, 1L AS c FROM g b JOIN g a ON a.run = b.run AND a.req = b.req - 1`
		picks, err := r.pickRanks("_remote_om_gaps", src, []int64{500})
		if err != nil {
			return err
		}
		for key, p := range picks {
			gaps[key.run] = p.v[0]
		}
	}
	var vals []string
	for run, g := range gaps {
		vals = append(vals, "("+sqllit.String(run)+", "+strconv.FormatInt(g, 10)+")")
	}
	slices.Sort(vals)
	g := `SELECT NULL::VARCHAR AS run, NULL::BIGINT AS gap_us WHERE false`
	if len(vals) > 0 {
		g = `SELECT * FROM (VALUES ` + strings.Join(vals, ", ") + `) v(run, gap_us)`
	}
	if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE _remote_om_runs AS
    SELECT s.*, g.gap_us::BIGINT AS gap_us FROM _remote_om_runs0 s LEFT JOIN (`+g+`) g USING (run)`); err != nil {
		return err
	}
	_, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO _om_runs(exp, stats, infer, reuse) AS TABLE
    SELECT run, rows, with_req, with_t, missing, first_req, last_req, NULL::BIGINT AS sched_rows, NULL::HUGEINT AS check_sum,
           CASE WHEN infer THEN gap_us END AS gap_us, false AS stored
    FROM _remote_om_runs
    WHERE CASE WHEN exp IS DISTINCT FROM `+sqllit.String(exp)+` OR (infer AND NOT stats) OR (infer AND NOT `+strconv.FormatBool(infer)+`)
               THEN error('_om_runs: the engine''s rows were computed for other arguments') ELSE stats END`)
	return err
}

// omQuantiles are omission's quantiles in thousandths (_om_quantiles).
var omQuantiles = []int64{500, 900, 950, 990, 999, 1000}

// omissionSteps runs _om_picks's and _om_window_sums's steps for o and
// makes the in-memory macros of those names read them.
func (r *Remote) omissionSteps(exp string, o OmissionOptions) error {
	rowsSQL, err := r.omRows(exp, o)
	if err != nil {
		return err
	}
	// the three series of omission's quantiles, over the rows a request
	// stands for (count >= 1): 0 the latency l, 1 a = start - n I, 2 l + a
	src := `
WITH q AS (` + rowsSQL + `),
s AS (SELECT run, count AS c, lat_us * den AS l, start_us * den - n * num AS a FROM q WHERE count >= 1)
SELECT run, k, v, c FROM s LATERAL VIEW stack(3, 0, l, 1, a, 2, l + a) x AS k, v WHERE v IS NOT NULL`
	picks, err := r.pickRanks("_remote_om_picks", src, omQuantiles)
	if err != nil {
		return err
	}
	// one row per run with an a (every row of count >= 1 has one)
	var vals []string
	for key, p := range picks {
		if key.k != 1 {
			continue
		}
		t0, lag := p.lo, list(p.v)
		n, lat, cor := "NULL::BIGINT", "NULL::BIGINT[]", "NULL::BIGINT[]"
		if l, ok := picks[pickKey{key.run, 0}]; ok {
			n, lat, cor = strconv.FormatInt(l.n, 10), list(l.v), list(picks[pickKey{key.run, 2}].v)
		}
		vals = append(vals, fmt.Sprintf("(%s, %d::BIGINT, %s::BIGINT, %s::BIGINT[], %s::BIGINT[], %s::BIGINT[])", sqllit.String(key.run), t0, n, lat, cor, lag))
	}
	slices.Sort(vals)
	table := `SELECT NULL::VARCHAR AS run, NULL::BIGINT AS t0, NULL::BIGINT AS n, NULL::BIGINT[] AS lat, NULL::BIGINT[] AS cor, NULL::BIGINT[] AS lag WHERE false`
	if len(vals) > 0 {
		table = `SELECT * FROM (VALUES ` + strings.Join(vals, ", ") + `) v(run, t0, n, lat, cor, lag)`
	}
	if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE _remote_om_picks AS `+table); err != nil {
		return err
	}
	num, den := "NULL", "1"
	if !o.Interval.IsZero() {
		num, den = strconv.FormatInt(o.Interval.Num, 10), strconv.FormatInt(o.Interval.Den, 10)
	}
	same := `exp IS DISTINCT FROM ` + sqllit.String(exp) + ` OR interval_num IS DISTINCT FROM ` + num + ` OR interval_den IS DISTINCT FROM ` + den
	if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO _om_picks(exp, interval_num, interval_den, intervals) AS TABLE
    SELECT * FROM _remote_om_picks
    WHERE CASE WHEN `+same+` THEN error('_om_picks: the engine''s picks were computed for other arguments') ELSE true END`); err != nil {
		return err
	}
	// the windows: _om_floor(start, win) in integers, sums of count as DECIMAL
	// (and the rows and the last req, which _om_windows hands on)
	var win int64
	if err := r.db.QueryRowContext(r.ctx, `SELECT round(`+sqllit.Ms(o.Window)+` * 1000)::BIGINT`).Scan(&win); err != nil {
		return err
	}
	// a window under half a µs is of 0 µs: DuckDB's integer division by 0
	// is NULL, one window of every row
	w, by := "CAST(NULL AS BIGINT)", "run"
	if win > 0 {
		w = "(start_us - pmod(start_us, " + engine.Int(win) + ")) div " + engine.Int(win)
		by += ", " + w
	}
	if err := r.reduce("_remote_om_window_sums", "run VARCHAR, w BIGINT, sent HUGEINT, min_a BIGINT, max_a BIGINT, n0 BIGINT, last_us BIGINT, rows BIGINT, n1 BIGINT", `
WITH q AS (`+rowsSQL+`)
SELECT run, `+w+` AS w, sum(CAST(count AS DECIMAL(38,0))) AS sent,
       min(start_us * den - n * num) AS min_a, max(start_us * den - n * num) AS max_a, min(n) AS n0, max(start_us) AS last_us,
       count(*) AS rows, max(n) AS n1
FROM q GROUP BY `+by); err != nil {
		return err
	}
	_, err = r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO _om_window_sums(exp, interval_num, interval_den, win_us, intervals) AS TABLE
    SELECT * FROM _remote_om_window_sums
    WHERE CASE WHEN `+same+` OR win_us IS DISTINCT FROM `+strconv.FormatInt(win, 10)+`
               THEN error('_om_window_sums: the engine''s sums were computed for other arguments') ELSE true END`)
	return err
}

func list(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// pickKey is one series of values: a run's, of kind k.
type pickKey struct {
	run string
	k   int64
}

// picked is a series' count (the sum of the values' weights), its
// smallest value and the values at each rank asked for.
type picked struct {
	n, lo int64
	v     []int64
}

// The bounds of a pass: an interval of values is cut into at most
// pickBuckets buckets of 2^shift, or, holding at most pickValues
// requests, its distinct values come back; pickBatch intervals a step.
const (
	pickBuckets = 2048
	pickValues  = 2048
	pickBatch   = 24
)

// pickRanks picks, for each series of src (a Spark SELECT of run, k BIGINT,
// v BIGINT NOT NULL and its weight c BIGINT, one row per request row),
// the values of the nearest ranks max(1, ceil(q‰ · n / 1000)) for each q
// in qs, n the series' sum of weights: quantile_disc's pick with DECIMAL
// quantiles over the rows written out count times. The first step brings
// back each series' n, min and max; then every pass counts the values of
// each interval that holds a wanted rank per bucket of 2^shift (the
// value's high bits, at most pickBuckets buckets), and keeps the bucket
// that holds the rank, until an interval holds at most pickValues
// requests, whose distinct values come back with their counts: what
// comes back is bounded by the intervals, never by the requests.
func (r *Remote) pickRanks(name, src string, qs []int64) (map[pickKey]*picked, error) {
	return r.pickAt(name, src, pickBatch, func(n int64) []int64 {
		ranks := make([]int64, len(qs))
		for i, q := range qs {
			ranks[i] = max(1, (q*n+999)/1000)
		}
		return ranks
	})
}

// pickAt is pickRanks with the ranks of a series of n given by ranks (each
// in [1, n]) and batch intervals a step (series that share no (run, k)
// join to few of them, so a step may take many).
func (r *Remote) pickAt(name, src string, batch int, ranks func(n int64) []int64) (map[pickKey]*picked, error) {
	if err := r.reduce(name+"_n", "run VARCHAR, k BIGINT, n BIGINT, lo BIGINT, hi BIGINT",
		`SELECT run, k, sum(c) AS n, min(v) AS lo, max(v) AS hi FROM (`+src+`) GROUP BY run, k`); err != nil {
		return nil, err
	}
	rows, err := r.db.QueryContext(r.ctx, `SELECT run, k, n, lo, hi FROM `+name+`_n WHERE n > 0 ORDER BY run, k`)
	if err != nil {
		return nil, err
	}
	out := map[pickKey]*picked{}
	type target struct {
		key          pickKey
		i            int
		lo, hi, rank int64
		cnt          int64 // the requests in [lo, hi]
	}
	var todo []*target
	for rows.Next() {
		var key pickKey
		var n, lo, hi int64
		if err := rows.Scan(&key.run, &key.k, &n, &lo, &hi); err != nil {
			rows.Close()
			return nil, err
		}
		rs := ranks(n)
		p := &picked{n: n, lo: lo, v: make([]int64, len(rs))}
		out[key] = p
		for i, rank := range rs {
			switch {
			case rank == 1 || lo == hi:
				p.v[i] = lo
			case rank == n:
				p.v[i] = hi
			default:
				todo = append(todo, &target{key: key, i: i, lo: lo, hi: hi, rank: rank, cnt: n})
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for pass := 0; len(todo) > 0; pass++ {
		// the distinct intervals, each with its shift (-1: its values)
		type interval struct {
			key    pickKey
			lo, hi int64
		}
		ids := map[interval]int{}
		var ivs []interval
		var shifts []int
		for _, t := range todo {
			iv := interval{t.key, t.lo, t.hi}
			if _, ok := ids[iv]; !ok {
				ids[iv] = len(ivs)
				ivs = append(ivs, iv)
				shifts = append(shifts, pickShift(t.lo, t.hi, t.cnt))
			}
		}
		counts := map[int][][2]int64{} // interval -> (bucket or value, count), ascending
		for from := 0; from < len(ivs); from += batch {
			var vals []string
			for id := from; id < min(from+batch, len(ivs)); id++ {
				iv := ivs[id]
				vals = append(vals, fmt.Sprintf("(%d, %s, %s, %s, %s, %d)", id, engine.String(iv.key.run), engine.Int(iv.key.k), engine.Int(iv.lo), engine.Int(iv.hi), shifts[id]))
			}
			step := fmt.Sprintf("%s_%d", name, pass)
			if err := r.reduce(step, "id INTEGER, b BIGINT, c BIGINT", `
WITH x AS (`+src+`),
t AS (SELECT * FROM VALUES `+strings.Join(vals, ", ")+` AS t(id, run, k, lo, hi, sh))
SELECT t.id, CASE WHEN t.sh < 0 THEN x.v ELSE shiftright(x.v, t.sh) END AS b, sum(x.c) AS c
FROM x JOIN t ON x.run = t.run AND x.k = t.k AND x.v BETWEEN t.lo AND t.hi
GROUP BY t.id, CASE WHEN t.sh < 0 THEN x.v ELSE shiftright(x.v, t.sh) END`); err != nil {
				return nil, err
			}
			rows, err := r.db.QueryContext(r.ctx, `SELECT id, b, c FROM `+step+` ORDER BY id, b`)
			if err != nil {
				return nil, err
			}
			for rows.Next() {
				var id int
				var bc [2]int64
				if err := rows.Scan(&id, &bc[0], &bc[1]); err != nil {
					rows.Close()
					return nil, err
				}
				counts[id] = append(counts[id], bc)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, err
			}
		}
		var next []*target
		for _, t := range todo {
			id := ids[interval{t.key, t.lo, t.hi}]
			sh, before := shifts[id], int64(0)
			found := false
			for _, bc := range counts[id] {
				if before+bc[1] < t.rank {
					before += bc[1]
					continue
				}
				found = true
				if sh < 0 {
					out[t.key].v[t.i] = bc[0]
					break
				}
				lo := bc[0] << sh
				t.lo, t.hi = max(t.lo, lo), min(t.hi, lo|(int64(1)<<sh-1))
				t.rank, t.cnt = t.rank-before, bc[1]
				if t.lo == t.hi {
					out[t.key].v[t.i] = t.lo
				} else {
					next = append(next, t)
				}
				break
			}
			if !found {
				return nil, fmt.Errorf("reduce step %s: the counts of run %s's values in [%d, %d] hold fewer than %d (the data changed under the steps?)", name, t.key.run, t.lo, t.hi, t.rank)
			}
		}
		todo = next
	}
	return out, nil
}

// pickShift is the bucket width 2^shift that cuts [lo, hi] into at most
// pickBuckets buckets, or -1 when its cnt requests are few enough to
// bring back by value.
func pickShift(lo, hi, cnt int64) int {
	if cnt <= pickValues {
		return -1
	}
	span := uint64(hi) - uint64(lo) // hi >= lo: exact
	sh := max(0, bits.Len64(span)-bits.Len64(pickBuckets-1)+1)
	for sh < 63 && (hi>>sh)-(lo>>sh) >= pickBuckets {
		sh++
	}
	for sh > 0 && (hi>>(sh-1))-(lo>>(sh-1)) < pickBuckets {
		sh--
	}
	return sh
}
