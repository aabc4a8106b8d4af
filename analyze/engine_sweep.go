package analyze

import (
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/queries"
	"github.com/rewind-dev/rewind/store"
)

// Falsification's sweep judged on the engine (issue 36: only aggregates
// come back). The windows stay on the cluster; two steps over windowsWith's
// rows bring back what _sweep (queries/windows.sql) counts:
//
//  1. the control windows with a value, compressed per (group, value_den):
//     their count, the sum of value_num and of its absolute value → one row
//     per group and distinct denominator. The client computes each group's
//     baseline exactly as _judged_windows does (w, l the lcm of the dens,
//     sl = Σ num · l / den), in big.Int.
//  2. every window of both sides judged against every threshold as _breaks
//     does, multiplied out: num · k against den · c with k = max(w, 1) · l ·
//     10^6 and c = f · sl + a · max(w, 1) · l literals per group and
//     threshold, in DECIMAL(38,0) → one row per side, group and threshold:
//     the windows with a value, those falsified, the first falsified.
//
// No product may pass DECIMAL(38,0) (nor the local HUGEINT): every literal
// is bounded below judgeLimit in big.Int before step 2 is sent, and step 2
// judges a window only when |num| · k and den · |c| stay below it too
// (counting those it does not). When a bound trips, or the groups are too
// many for literals, the windows are pulled as before (hypWindows) and the
// library judges them: the same answer, or the same error, as locally.
// A TEMP _sweep over the judged rows then takes the library's place (its
// macros are TEMP ones in the in-memory database), so hypothesis_sweep,
// falsification and their _by twins run unchanged.

// judgeLimit bounds every product of the judging (10^37, under
// DECIMAL(38,0)'s 10^38 and HUGEINT's 1.7 · 10^38); tests lower it to
// force the pulled path.
var judgeLimit = new(big.Int).Exp(big.NewInt(10), big.NewInt(37), nil)

// judgeMaxLiterals caps step 2's rows of literals (groups × thresholds):
// past it the windows are pulled.
const judgeMaxLiterals = 5000

// decMax is DECIMAL(38,0)'s largest value: a den bound that never trips.
var decMax = new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil), big.NewInt(1))

// sweepOn judges the sides' windows on the engine and makes the in-memory
// _sweep read the result, or returns false (nothing shadowed) when the
// windows must be pulled instead.
func (r *Remote) sweepOn(e store.Experiment, s hypothesis.Sides, w hypothesis.Window, ths []hypothesis.Bound, eg engineGroup) (bool, error) {
	r.swept = ""
	if err := r.restoreSweep(); err != nil {
		return false, err
	}
	j, why, err := r.judgeSetup(s, w, eg, ths)
	if err != nil || why != "" {
		r.swept = why
		return false, err
	}
	fa, bases, lits := j.fa, j.bases, j.lits
	step := windowValues(s, w, eg, j.num, j.den, "control", "experiment") + `,
th AS (` + lits.th + `),
tg AS (` + lits.tg + `),
j AS (SELECT v.role, v.gkey` + eg.keysOf("v") + `, th.i, v.window_no, v.den IS NOT NULL AS valued,
             ` + j.falsified() + ` AS falsified
      FROM v CROSS JOIN th LEFT JOIN tg ON tg.gkey = v.gkey AND tg.i = th.i
      WHERE tg.i IS NOT NULL OR th.f0)
SELECT role, gkey` + eg.keys() + `, i, count_if(valued) AS valued, count_if(falsified = 1) AS falsified,
       min(CASE WHEN falsified = 1 THEN window_no END) AS first_falsified, count_if(falsified IS NULL) AS unjudged
FROM j GROUP BY role, gkey` + eg.keys() + `, i`
	if err := r.reduce("_remote_sweep_judged", "role VARCHAR, gkey VARCHAR"+eg.cols()+", i BIGINT, valued BIGINT, falsified BIGINT, first_falsified BIGINT, unjudged BIGINT", step); err != nil {
		return false, err
	}
	// a window past a bound, or a group whose control windows met no
	// baseline (its key's text did not come back the same): pulled
	var unjudged int64
	if err := r.Querier().QueryRow(`SELECT coalesce(sum(unjudged), 0)::BIGINT
		+ (SELECT count(*) FROM _remote_sweep_judged WHERE role = 'control' AND valued > 0
		   AND gkey NOT IN (SELECT gkey FROM _remote_sweep_base))
		FROM _remote_sweep_judged`).Scan(&unjudged); err != nil || unjudged > 0 {
		r.swept = "pulled: a window past the bound"
		return false, err
	}
	r.swept = "judged"
	return true, r.shadowSweep(e, s, w, fa, eg, bases)
}

// restoreSweep puts the library's _sweep back where a former call's stood
// (the library's macros are TEMP ones in the in-memory database: the
// shadow replaced it), so the library judges pulled windows.
func (r *Remote) restoreSweep() error {
	if !r.sweepShadowed {
		return nil
	}
	if _, err := r.db.ExecContext(r.ctx, librarySweep()); err != nil {
		return err
	}
	r.sweepShadowed = false
	return nil
}

// libraryMacro is the statement of queries/NAME.sql that makes macro, as
// the library installs it (TEMP).
func libraryMacro(file, macro string) string {
	for _, f := range queries.Files() {
		if f.Name != file {
			continue
		}
		i := strings.Index(f.SQL, "CREATE OR REPLACE MACRO "+macro+"(")
		if i < 0 {
			break
		}
		n := strings.Index(f.SQL[i:], ";\n")
		return queries.Temp(f.SQL[i : i+n+1])
	}
	panic("queries/" + file + ".sql has no macro " + macro)
}

var librarySweep = sync.OnceValue(func() string { return libraryMacro("windows", "_sweep") })

// shadowSweep makes the in-memory _sweep read step 2's counts with each
// group's baseline, for these arguments only: _sweep's own last step
// (baseline, threshold) over them, so its doubles are the library's. A call
// with other arguments raises an error. grp is not checked: an expression
// over the columns of requests, it has no value here.
func (r *Remote) shadowSweep(e store.Experiment, s hypothesis.Sides, w hypothesis.Window, fa [][2]*big.Int, eg engineGroup, bases []baseline) error {
	var vals []string
	for _, b := range bases {
		vals = append(vals, fmt.Sprintf("(%s, %s::HUGEINT, %s::HUGEINT, %s::HUGEINT)", sqllit.String(b.gkey), b.w, b.l, b.sl))
	}
	base := `SELECT NULL::VARCHAR AS gkey, 0::HUGEINT AS w, 1::HUGEINT AS l, 0::HUGEINT AS sl WHERE false`
	if len(vals) > 0 {
		base = `SELECT * FROM (VALUES ` + strings.Join(vals, ", ") + `) b(gkey, w, l, sl)`
	}
	gk := "NULL"
	if len(eg.fields) > 0 {
		gk = eg.gk()
	}
	if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE _remote_sweep AS
SELECT `+gk+` AS gk, j.i, coalesce(any_value(b.w), 0)::HUGEINT AS w, coalesce(any_value(b.l), 1)::HUGEINT AS l,
       coalesce(any_value(b.sl), 0)::HUGEINT AS sl,
       coalesce(sum(j.falsified) FILTER (WHERE j.role = 'control'), 0)::BIGINT AS control_falsified,
       coalesce(sum(j.valued) FILTER (WHERE j.role = 'control'), 0)::BIGINT AS control_windows,
       coalesce(sum(j.falsified) FILTER (WHERE j.role = 'experiment'), 0)::BIGINT AS experiment_falsified,
       coalesce(sum(j.valued) FILTER (WHERE j.role = 'experiment'), 0)::BIGINT AS experiment_windows,
       (min(j.first_falsified) FILTER (WHERE j.role = 'experiment'))::BIGINT AS first_falsified_window
FROM _remote_sweep_judged j LEFT JOIN (`+base+`) b ON b.gkey = j.gkey
GROUP BY ALL`); err != nil {
		return err
	}
	n, ms := windowLiterals(w)
	split := splitLiteral(s)
	ths := make([]string, len(fa))
	for i, x := range fa {
		ths[i] = fmt.Sprintf("{'f': %s::HUGEINT, 'a': %s::HUGEINT}", x[0], x[1])
	}
	_, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO _sweep(exp, grp, grouped, thresholds, size_n, size_ms, metric, control_exp, control_run, control_role,
        treatment_exp, treatment_run, treatment_role, split_ms) AS TABLE
    WITH m AS (SELECT unnest(thresholds) AS th, generate_subscripts(thresholds, 1) AS i),
    c AS (
        SELECT * FROM _remote_sweep
        WHERE CASE WHEN exp IS DISTINCT FROM `+sqllit.String(e.Name)+` OR grouped IS DISTINCT FROM `+fmt.Sprint(len(eg.fields) > 0)+`
                        OR size_n::BIGINT IS DISTINCT FROM `+n+` OR size_ms::DOUBLE IS DISTINCT FROM `+ms+`
                        OR metric IS DISTINCT FROM `+sqllit.String(s.Metric)+` OR split_ms::DOUBLE IS DISTINCT FROM `+split+`
                        OR NOT (`+sweepSide("control", s.Control)+`) OR NOT (`+sweepSide("treatment", s.Treatment)+`)
                        OR thresholds::STRUCT(f HUGEINT, a HUGEINT)[] IS DISTINCT FROM [`+strings.Join(ths, ", ")+`]
                   THEN error('_sweep: the engine''s judging was computed for other arguments') ELSE true END
    )
    SELECT c.gk, m.i::BIGINT AS i,
           (CASE WHEN c.w > 0 THEN c.sl / (c.w * c.l) END / _metric_per(metric))::DOUBLE AS baseline,
           ((m.th.f * CASE WHEN c.w > 0 THEN c.sl / (c.w * c.l) ELSE 0 END + m.th.a) / 1000000 / _metric_per(metric))::DOUBLE AS threshold,
           c.control_falsified, c.control_windows, c.experiment_falsified, c.experiment_windows, c.first_falsified_window
    FROM c JOIN m ON m.i = c.i`)
	r.sweepShadowed = err == nil
	return err
}

// sweepSide is whether _sweep's arguments name side x: its experiment
// (the call's exp by default), its run, or no run and its role.
func sweepSide(prefix string, x hypothesis.Side) string {
	q := `coalesce(` + prefix + `_exp, exp) IS NOT DISTINCT FROM ` + sqllit.String(x.Experiment)
	role := "control"
	if prefix == "treatment" {
		role = "experiment"
	}
	if x.Run != "" {
		return q + ` AND ` + prefix + `_run IS NOT DISTINCT FROM ` + sqllit.String(x.Run)
	}
	return q + ` AND ` + prefix + `_run IS NULL AND coalesce(` + prefix + `_role, '` + role + `') IS NOT DISTINCT FROM ` + sqllit.String(x.Role)
}

// WindowStartOn is the first t_ms of window n (1-based) of experiment
// exp's experiment role, with windows w (or the stored ones), computed on
// r's engine: one row comes back. The report's verdict names it.
func WindowStartOn(r *Remote, exp string, w hypothesis.Window, n int64) (sql.NullFloat64, error) {
	var at sql.NullFloat64
	e, w, err := findWindow(r.Querier(), exp, w)
	if err != nil {
		return at, err
	}
	s := hypothesis.Sides{Treatment: hypothesis.Side{Experiment: e.Name, Role: "experiment"}, Metric: "ok_share"}
	if err := r.reduce("_remote_window_start", "first_t_ms DOUBLE",
		windowsWith(s, w, engineGroup{}, "experiment")+"\nSELECT first_t_ms FROM a WHERE w = "+engine.Int(n-1)); err != nil {
		return at, err
	}
	err = r.Querier().QueryRow(`SELECT first_t_ms FROM _remote_window_start`).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return at, nil
	}
	return at, err
}
