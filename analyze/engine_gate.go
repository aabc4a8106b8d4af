package analyze

import (
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// GateOn is Gate with the per-request work on r's engine: the replay's end
// is one reduce step (each role's last t_ms), each batch of windows the
// replay asks for is one (the windows' counts, latency sums and quantiles,
// from a histogram per (grid cell, µs) or per (window, µs) that stays on
// the cluster; one row per window with a row comes back), and the
// requests before the decision one more. The controllers' state machines
// are the library's, in Go, over the same integers.
func GateOn(r *Remote, o GateOptions) (measurements, decision *Result, err error) {
	db := r.Querier()
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, nil, err
	}
	return gateReplay(&gateSource{db: db, exp: e.Name, role: o.Role, cache: map[gateWindow]gateValues{}, remote: r}, o)
}

// gateRows is a role's rows with t_ms as gate.sql reads them, in Spark SQL.
func gateRows(exp, role string) string {
	q := `SELECT t_ms, count, outcome = 'ok' AS ok, CAST(round(latency_ms * 1000D) AS BIGINT) AS lat_us
FROM requests WHERE experiment = ` + engine.String(exp) + ` AND t_ms IS NOT NULL`
	if role != "" {
		q += " AND role = " + engine.String(role)
	}
	return q
}

// lastTimes is resolve's scan on the engine: whether exp has a row of role
// experiment, and the last t_ms of that role, of every row and of role.
func (r *Remote) lastTimes(exp, role string) (hasExp bool, lastExp, lastAll, lastRole sql.NullFloat64, err error) {
	err = r.reduce("_remote_gate_last", "has_exp BOOLEAN, last_exp DOUBLE, last_all DOUBLE, last_role DOUBLE", `
SELECT coalesce(bool_or(role = 'experiment'), false) AS has_exp, max(t_ms) FILTER (WHERE role = 'experiment') AS last_exp,
       max(t_ms) AS last_all, max(t_ms) FILTER (WHERE role = `+engine.String(role)+`) AS last_role
FROM requests WHERE experiment = `+engine.String(exp))
	if err == nil {
		err = r.Querier().QueryRow(`SELECT * FROM _remote_gate_last`).Scan(&hasExp, &lastExp, &lastAll, &lastRole)
	}
	return hasExp, lastExp, lastAll, lastRole, err
}

// lastRowOn is lastRow's query on the engine (the row that sets the
// replay's end, for checkSpan's refusal).
func (r *Remote) lastRowOn(exp, role string) (run string, seq, line int64, t sql.NullFloat64, err error) {
	q := `SELECT run, seq, line, t_ms FROM requests WHERE experiment = ` + engine.String(exp) + ` AND t_ms IS NOT NULL`
	if role != "" {
		q += " AND role = " + engine.String(role)
	}
	err = r.reduce("_remote_gate_lastrow", "run VARCHAR, seq BIGINT, line BIGINT, t_ms DOUBLE", q+` ORDER BY t_ms DESC, run, seq LIMIT 1`)
	if err == nil {
		err = r.Querier().QueryRow(`SELECT run, seq, line, t_ms FROM _remote_gate_lastrow`).Scan(&run, &seq, &line, &t)
	}
	return run, seq, line, t, err
}

// gateStep is _gate_hist and gate's per-window aggregates in Spark SQL,
// for the windows wins (a Spark SQL query of w, f, u: ms), or with a grid
// of gridUs µs (the greatest common divisor of the edges, _gate_grid's)
// for the windows' cells (a query of w, b: window w holds cell b): one row
// per window with a row. On the grid each row is counted once per (cell,
// µs), its cell floor(t_ms · 1000 / g) moved across an edge by comparing
// t_ms with the cell's edges in ms (the windows' own DOUBLE edges, as the
// local range join compares), and the cells are summed into the windows;
// without one, a range join puts each row in every window that holds it.
// The cell map is joined by a sort-merge join: Spark's estimate of an
// exploded sequence is small, and broadcasting a map of millions of cells
// ran the driver out of memory ("Not enough memory to build and broadcast").
// A quantile is picked from the window's counts per µs as the judge's are
// (quantileSums).
func gateStep(exp, role, wins string, gridUs int64) string {
	var h string
	if gridUs > 0 {
		g := engine.Int(gridUs)
		h = `c0 AS (SELECT CAST(floor(t_ms * 1000D / ` + g + `) AS BIGINT) AS b, t_ms, count, ok, lat_us FROM r),
cell AS (SELECT b - CASE WHEN t_ms < CAST(b * ` + g + ` AS DOUBLE) / 1000D THEN 1 ELSE 0 END
                  + CASE WHEN t_ms >= CAST((b + 1) * ` + g + ` AS DOUBLE) / 1000D THEN 1 ELSE 0 END AS b, count, ok, lat_us FROM c0),
per_cell AS (SELECT b, lat_us, sum(count) AS c, coalesce(sum(count) FILTER (WHERE ok), 0) AS c_ok FROM cell GROUP BY b, lat_us),
map AS (` + wins + `),
h AS (SELECT /*+ MERGE(map) */ map.w, p.lat_us, sum(p.c) AS c, sum(p.c_ok) AS c_ok FROM per_cell p JOIN map ON map.b = p.b GROUP BY map.w, p.lat_us)`
	} else {
		h = `wins AS (` + wins + `),
h AS (SELECT wins.w, r.lat_us, sum(r.count) AS c, coalesce(sum(r.count) FILTER (WHERE r.ok), 0) AS c_ok
      FROM r JOIN wins ON r.t_ms >= wins.f AND r.t_ms < wins.u GROUP BY wins.w, r.lat_us)`
	}
	return `WITH r AS (` + gateRows(exp, role) + `),
` + h + `
` + quantileSums("w", `sum(c) AS requests, sum(c_ok) AS ok, coalesce(sum(c) FILTER (WHERE lat_us IS NOT NULL), 0) AS lat_n,
       sum(CAST(lat_us AS DECIMAL(38,0)) * c) AS lat_sum_us`, "true", true)
}

// gateBatch bounds the rows of literals one gate step sends: Spark's
// analyzer ran out of heap over 70,000 windows listed as VALUES. A
// variable so that a test crosses batch edges with a few windows (Spark's
// analyzer takes minutes over thousands of literal rows on a loaded machine).
var gateBatch = 2000

// gateWindowQueries are the windows (DuckDB literals of ms) as Spark SQL
// queries of at most gateBatch literal rows each. On a grid of g µs, a
// window is its cells [round(f · 1000) div g, round(u · 1000) div g), and
// consecutive windows whose cells move by the same numbers are one row,
// (w0, n, b0, db, e0, de), exploded on the cluster in integers: a schedule
// of equal steps is one row. Without a grid, each window is a row (w, f,
// u).
func gateWindowQueries(from, until []string, gridUs int64) []string {
	var rows []string
	if gridUs > 0 {
		type prog struct{ w0, n, b0, db, e0, de int64 }
		var ps []prog
		for i := range from {
			f, _ := strconv.ParseFloat(from[i], 64)
			u, _ := strconv.ParseFloat(until[i], 64)
			if !(u > f) {
				continue
			}
			w, b, e := int64(i+1), int64(math.Round(f*1000))/gridUs, int64(math.Round(u*1000))/gridUs
			if k := len(ps) - 1; k >= 0 {
				p := &ps[k]
				if p.w0+p.n == w && (p.n == 1 || (p.b0+p.n*p.db == b && p.e0+p.n*p.de == e)) {
					if p.n == 1 {
						p.db, p.de = b-p.b0, e-p.e0
					}
					p.n++
					continue
				}
			}
			ps = append(ps, prog{w0: w, n: 1, b0: b, e0: e})
		}
		for _, p := range ps {
			rows = append(rows, fmt.Sprintf("(%dL, %dL, %dL, %dL, %dL, %dL)", p.w0, p.n, p.b0, p.db, p.e0, p.de))
		}
	} else {
		for i := range from {
			f, _ := strconv.ParseFloat(from[i], 64)
			u, _ := strconv.ParseFloat(until[i], 64)
			rows = append(rows, fmt.Sprintf("(%dL, %s, %s)", i+1, engine.Double(f), engine.Double(u)))
		}
	}
	var out []string
	for len(rows) > 0 {
		n := min(len(rows), gateBatch)
		if gridUs > 0 {
			out = append(out, `SELECT w, explode(sequence(b, e - 1)) AS b
FROM (SELECT w0 + k AS w, b0 + k * db AS b, e0 + k * de AS e
      FROM (SELECT *, explode(sequence(0L, n - 1)) AS k FROM VALUES `+strings.Join(rows[:n], ", ")+` AS t(w0, n, b0, db, e0, de)))`)
		} else {
			out = append(out, `SELECT * FROM VALUES `+strings.Join(rows[:n], ", ")+` AS t(w, f, u)`)
		}
		rows = rows[n:]
	}
	return out
}

// gateWindowsOn runs gateStep for these windows (DuckDB literals of ms),
// gateBatch rows of literals at a time, and makes the in-memory database's
// gate read its rows, every window listed as locally, for these arguments
// only.
func (r *Remote) gateWindowsOn(exp, role string, from, until []string) error {
	lists := "[" + strings.Join(from, ", ") + "]::DOUBLE[], [" + strings.Join(until, ", ") + "]::DOUBLE[]"
	var gridUs, cells sql.NullInt64
	if err := r.Querier().QueryRow(`SELECT g_us, cells FROM _gate_grid(`+lists+`)`).Scan(&gridUs, &cells); err != nil {
		return err
	}
	g := int64(0)
	if gridUs.Int64 > 0 && cells.Valid && cells.Int64 <= 4000000 {
		g = gridUs.Int64
	}
	const cols = "w BIGINT, requests BIGINT, ok BIGINT, lat_n BIGINT, lat_sum_us HUGEINT, q1 BIGINT, q2 BIGINT, q3 BIGINT, q4 BIGINT, q5 BIGINT, q6 BIGINT"
	if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE _remote_gate (`+cols+`)`); err != nil {
		return err
	}
	for _, wins := range gateWindowQueries(from, until, g) {
		if err := r.reduce("_remote_gate_part", cols, gateStep(exp, role, wins, g)); err != nil {
			return err
		}
		if _, err := r.db.ExecContext(r.ctx, `INSERT INTO _remote_gate SELECT * FROM _remote_gate_part`); err != nil {
			return err
		}
	}
	roleLit := "NULL"
	if role != "" {
		roleLit = sqllit.String(role)
	}
	_, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO gate(exp, role_name, from_ms, until_ms) AS TABLE
    SELECT w.w AS "window", coalesce(g.requests, 0) AS requests, coalesce(g.ok, 0) AS ok, coalesce(g.lat_n, 0) AS lat_n,
           g.lat_sum_us, g.q1 AS p50_us, g.q2 AS p90_us, g.q3 AS p95_us, g.q4 AS p99_us, g.q5 AS p999_us, g.q6 AS max_us
    FROM _gate_windows(from_ms, until_ms) w LEFT JOIN _remote_gate g ON g.w = w.w
    WHERE CASE WHEN exp IS DISTINCT FROM `+sqllit.String(exp)+` OR role_name IS DISTINCT FROM `+roleLit+`
                    OR from_ms::DOUBLE[] IS DISTINCT FROM ([`+strings.Join(from, ", ")+`]::DOUBLE[])
                    OR until_ms::DOUBLE[] IS DISTINCT FROM ([`+strings.Join(until, ", ")+`]::DOUBLE[])
               THEN error('gate: the engine''s windows were computed for other arguments') ELSE true END
    ORDER BY "window"`)
	return err
}

// gateHurtOn is _gate_hurt on the engine: the requests of role (every row
// for "") before untilMs, and those not answered ok; one row comes back.
func (r *Remote) gateHurtOn(exp, role string, untilMs float64) (requests, notOK int64, err error) {
	q := `SELECT coalesce(sum(count), 0) AS requests, coalesce(sum(count) FILTER (WHERE NOT (outcome <=> 'ok')), 0) AS not_ok
FROM requests WHERE experiment = ` + engine.String(exp) + ` AND t_ms < ` + engine.Double(untilMs)
	if role != "" {
		q += " AND role = " + engine.String(role)
	}
	if err = r.reduce("_remote_gate_hurt", "requests BIGINT, not_ok BIGINT", q); err == nil {
		err = r.Querier().QueryRow(`SELECT requests, not_ok FROM _remote_gate_hurt`).Scan(&requests, &notOK)
	}
	return requests, notOK, err
}
