package analyze

import (
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// Stop-damage's streaks judged on the engine (issue 36: only aggregates
// come back). The windows stay on the cluster: step 1 is falsification's
// (each group's baseline, engine_sweep.go), and one more step judges the
// experiment side's windows against the one threshold as _streaks does and
// finds the streaks in blocks of window numbers (window_no div 65536), each
// block a partition of its own: no single task orders every window. Per
// (group, block) one row comes back:
//
//   - the block's valued windows, its damage, lead (the valued windows
//     before its first valued window not falsified: all falsified) and trail
//     (the streak at its last window, counted from the block's start);
//   - per k, the first window whose streak counted from the block's start
//     reaches k, and the damage of the block up to it;
//   - for j < max(k), the j-th valued window of the lead and the damage up
//     to it: a streak carried in from the blocks before reaches k there.
//
// The client walks each group's blocks in order with the streak carried
// in, so every stop is the local run's, and the damage up to it is the
// blocks' before plus the block's own up to it (streaksOf). A TEMP _streaks
// (_streaks_by with --by) then gives, per group, one row per stop window
// (its streak the largest k stopping there, its damage since the stop
// before) and one past every window with the rest: stop_damage's own SQL
// over those rows gives the local answer. The shadow stands for one call
// and is checked against its arguments.
//
// The same bounds as falsification's judging hold (judgeSetup): past them,
// or for a k past maxStreakK, the windows are pulled as before. A control
// window with a value whose group met no baseline (its key's text did not
// come back the same) pulls them too.

// streakBlock is the width of a block of window numbers; tests lower it
// so that streaks cross blocks.
var streakBlock int64 = 65536

// maxStreakK bounds the k judged on the engine: each k below it is two
// columns of the step.
const maxStreakK = 64

// streaksOn judges the experiment side's streaks on the engine and makes
// the in-memory _streaks (or _streaks_by) read them, or returns false
// (nothing shadowed) when the windows must be pulled instead. The caller
// has restored the library's macros (restoreStreaks).
func (r *Remote) streaksOn(e store.Experiment, s hypothesis.Sides, w hypothesis.Window, th hypothesis.Bound, ks []int64, eg engineGroup) (bool, error) {
	r.streaked = ""
	kmax := ks[len(ks)-1]
	if kmax > maxStreakK {
		r.streaked = fmt.Sprintf("pulled: k %d past %d", kmax, maxStreakK)
		return false, nil
	}
	j, why, err := r.judgeSetup(s, w, eg, []hypothesis.Bound{th})
	if err != nil || why != "" {
		r.streaked = why
		return false, err
	}
	cols := "role VARCHAR, gkey VARCHAR" + eg.cols() + ", blk BIGINT, unmatched BIGINT, unjudged BIGINT, n_valued BIGINT, lead BIGINT, trail BIGINT, tagged BIGINT, damage BIGINT, not_ok BIGINT"
	var per []string
	at := func(name, where string) {
		per = append(per, fmt.Sprintf(`min(window_no) FILTER (WHERE %[2]s) AS %[1]s, min_by(cum, window_no) FILTER (WHERE %[2]s) AS %[1]s_d, min_by(cum_n, window_no) FILTER (WHERE %[2]s) AS %[1]s_n`, name, where))
		cols += fmt.Sprintf(", %[1]s BIGINT, %[1]s_d BIGINT, %[1]s_n BIGINT", name)
	}
	for _, k := range ks {
		at(fmt.Sprintf("s%d", k), fmt.Sprintf("streak >= %d", k))
	}
	for i := int64(1); i < kmax; i++ {
		at(fmt.Sprintf("l%d", i), fmt.Sprintf("broken = 0 AND valued AND ord = %d", i))
	}
	part := `OVER (PARTITION BY role, gkey, blk ORDER BY window_no ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`
	step := windowValues(s, w, eg, j.num, j.den, "control", "experiment") + `,
th AS (` + j.lits.th + `),
tg AS (` + j.lits.tg + `),
j AS (SELECT v.role, v.gkey` + eg.keysOf("v") + `, v.window_no, v.window_no div ` + engine.Int(streakBlock) + ` AS blk, v.damage, v.tagged, v.not_ok,
             v.den IS NOT NULL AS valued, tg.i IS NULL AS unmatched, tg.i IS NOT NULL OR th.f0 AS kept,
             ` + j.falsified() + ` AS falsified
      FROM v CROSS JOIN th LEFT JOIN tg ON tg.gkey = v.gkey AND tg.i = th.i),
wo AS (SELECT *, sum(CASE WHEN valued THEN 1 ELSE 0 END) ` + part + ` AS ord, sum(damage) ` + part + ` AS cum,
             sum(not_ok) ` + part + ` AS cum_n
      FROM j WHERE kept OR role = 'control'),
wt AS (SELECT *, ord - coalesce(max(CASE WHEN valued AND falsified = 0 THEN ord END) ` + part + `, 0) AS streak,
             max(CASE WHEN valued AND falsified = 0 THEN 1 ELSE 0 END) ` + part + ` AS broken
      FROM wo)
SELECT role, gkey` + eg.keys() + `, blk, count_if(valued AND unmatched) AS unmatched, count_if(falsified IS NULL) AS unjudged,
       max(ord) AS n_valued, coalesce(max(CASE WHEN broken = 0 THEN ord END), 0L) AS lead,
       max_by(streak, window_no) AS trail, sum(tagged) AS tagged, sum(damage) AS damage, sum(not_ok) AS not_ok,
       ` + strings.Join(per, ",\n       ") + `
FROM wt GROUP BY role, gkey` + eg.keys() + `, blk`
	if err := r.reduce("_remote_streak_blocks", cols, step); err != nil {
		return false, err
	}
	// a window past a bound, or a group whose control windows met no
	// baseline: pulled
	var off int64
	if err := r.Querier().QueryRow(`SELECT coalesce(sum(CASE role WHEN 'control' THEN unmatched ELSE unjudged END), 0)::BIGINT
		FROM _remote_streak_blocks`).Scan(&off); err != nil || off > 0 {
		r.streaked = "pulled: a window past the bound"
		return false, err
	}
	rows, err := r.streaksOf(ks)
	if err != nil {
		return false, err
	}
	r.streaked = "judged"
	return true, r.shadowStreaks(e, s, w, j, rows, eg)
}

// streakRow is one row of the shadow _streaks: a stop window, or the one
// past every window (math.MaxInt64, streak 0) with the rest of the damage.
type streakRow struct {
	gkey                   string
	window, streak, damage int64
}

// streaksOf walks each group's blocks in order (the experiment side's rows
// of _remote_streak_blocks) and gives the shadow's rows: per stop, its
// window, the largest k stopping there and the damage since the stop
// before; then the rest of the group's damage, past every window. The
// damage is _judged_windows's: tagged requests not ok where the group's
// experiment windows have a tagged request, else every request not ok.
func (r *Remote) streaksOf(ks []int64) ([]streakRow, error) {
	kmax := ks[len(ks)-1]
	sel := "gkey, n_valued, lead, trail, CASE WHEN has_tags THEN damage ELSE not_ok END"
	at := func(name string) {
		sel += fmt.Sprintf(", %[1]s, CASE WHEN has_tags THEN %[1]s_d ELSE %[1]s_n END", name)
	}
	for _, k := range ks {
		at(fmt.Sprintf("s%d", k))
	}
	for i := int64(1); i < kmax; i++ {
		at(fmt.Sprintf("l%d", i))
	}
	q, err := r.Querier().Query(`SELECT ` + sel + ` FROM (
		SELECT *, sum(tagged) OVER (PARTITION BY gkey) > 0 AS has_tags FROM _remote_streak_blocks WHERE role = 'experiment')
		ORDER BY gkey, blk`)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	var out []streakRow
	var g *streakWalk
	for q.Next() {
		var b streakBlockRow
		b.at = make([]sql.NullInt64, 2*len(ks)+2*int(kmax-1))
		dest := []any{&b.gkey, &b.valued, &b.lead, &b.trail, &b.damage}
		for i := range b.at {
			dest = append(dest, &b.at[i])
		}
		if err := q.Scan(dest...); err != nil {
			return nil, err
		}
		if g == nil || g.gkey != b.gkey {
			if g != nil {
				out = append(out, g.rows()...)
			}
			g = newStreakWalk(b.gkey, ks)
		}
		g.block(b)
	}
	if g != nil {
		out = append(out, g.rows()...)
	}
	return out, q.Err()
}

// streakBlockRow is one block of a group: at holds s, d per k, then l, c
// per j < max(k).
type streakBlockRow struct {
	gkey                        string
	valued, lead, trail, damage int64
	at                          []sql.NullInt64
}

// streakWalk is one group's walk over its blocks.
type streakWalk struct {
	gkey          string
	ks            []int64
	found         []bool
	stop, dmg     []int64 // per k: the stop window and the damage up to it
	carry, before int64   // the streak carried into the next block, the damage before it
}

func newStreakWalk(gkey string, ks []int64) *streakWalk {
	return &streakWalk{gkey: gkey, ks: ks, found: make([]bool, len(ks)), stop: make([]int64, len(ks)), dmg: make([]int64, len(ks))}
}

// block takes the next block: a k not yet reached stops at the j-th window
// of its lead when the carried streak plus j reaches k, else where the
// streak counted from the block's start reaches it.
func (g *streakWalk) block(b streakBlockRow) {
	n := len(g.ks)
	for i, k := range g.ks {
		if g.found[i] {
			continue
		}
		if j := k - g.carry; g.carry > 0 && j >= 1 && j <= b.lead {
			g.stop[i], g.dmg[i], g.found[i] = b.at[2*n+2*int(j-1)].Int64, g.before+b.at[2*n+2*int(j-1)+1].Int64, true
		} else if b.at[2*i].Valid {
			g.stop[i], g.dmg[i], g.found[i] = b.at[2*i].Int64, g.before+b.at[2*i+1].Int64, true
		}
	}
	if b.lead == b.valued {
		g.carry += b.valued
	} else {
		g.carry = b.trail
	}
	g.before += b.damage
}

// rows are the group's rows of the shadow.
func (g *streakWalk) rows() []streakRow {
	var out []streakRow
	var prev int64
	for i, k := range g.ks {
		if !g.found[i] {
			continue
		}
		if len(out) > 0 && out[len(out)-1].window == g.stop[i] {
			out[len(out)-1].streak = k
			continue
		}
		out = append(out, streakRow{g.gkey, g.stop[i], k, g.dmg[i] - prev})
		prev = g.dmg[i]
	}
	return append(out, streakRow{g.gkey, math.MaxInt64, 0, g.before - prev})
}

// shadowStreaks loads the rows and makes the in-memory _streaks (with
// --by, _streaks_by) read them, for these arguments only.
func (r *Remote) shadowStreaks(e store.Experiment, s hypothesis.Sides, w hypothesis.Window, j judging, rows []streakRow, eg engineGroup) error {
	if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE _remote_streak_rows (gkey VARCHAR, window_no BIGINT, streak BIGINT, damage BIGINT)`); err != nil {
		return err
	}
	for c := range slices.Chunk(rows, 1000) {
		vals := make([]string, len(c))
		for i, x := range c {
			vals[i] = fmt.Sprintf("(%s, %d, %d, %d)", sqllit.String(x.gkey), x.window, x.streak, x.damage)
		}
		if _, err := r.db.ExecContext(r.ctx, `INSERT INTO _remote_streak_rows VALUES `+strings.Join(vals, ", ")); err != nil {
			return err
		}
	}
	n, ms := windowLiterals(w)
	check := `CASE WHEN exp IS DISTINCT FROM ` + sqllit.String(e.Name) + `
                    OR size_n::BIGINT IS DISTINCT FROM ` + n + ` OR size_ms::DOUBLE IS DISTINCT FROM ` + ms + `
                    OR metric IS DISTINCT FROM ` + sqllit.String(s.Metric) + ` OR split_ms::DOUBLE IS DISTINCT FROM ` + splitLiteral(s) + `
                    OR f::HUGEINT IS DISTINCT FROM ` + j.fa[0][0].String() + ` OR a::HUGEINT IS DISTINCT FROM ` + j.fa[0][1].String() + `
                    OR NOT (` + sweepSide("control", s.Control) + `) OR NOT (` + sweepSide("treatment", s.Treatment) + `)
               THEN error('_streaks: the engine''s streaks were computed for other arguments') ELSE true END`
	args := `size_n, size_ms, metric, f, a, control_exp, control_run, control_role,
        treatment_exp, treatment_run, treatment_role, split_ms`
	var err error
	if len(eg.fields) == 0 {
		_, err = r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO _streaks(exp, `+args+`) AS TABLE
    SELECT window_no, streak, damage FROM _remote_streak_rows WHERE `+check)
	} else {
		_, err = r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO _streaks_by(exp, grp, `+args+`) AS TABLE
    SELECT k.gk, s.window_no, s.streak, s.damage
    FROM _remote_streak_rows s
    JOIN (SELECT DISTINCT gkey, `+eg.gk()+` AS gk FROM _remote_streak_blocks WHERE role = 'experiment') k ON k.gkey = s.gkey
    WHERE `+check)
	}
	r.streaksShadowed = err == nil
	return err
}

// restoreStreaks puts the library's _streaks and _streaks_by back where a
// former call's shadow stood.
func (r *Remote) restoreStreaks() error {
	if !r.streaksShadowed {
		return nil
	}
	for _, m := range libraryStreaks() {
		if _, err := r.db.ExecContext(r.ctx, m); err != nil {
			return err
		}
	}
	r.streaksShadowed = false
	return nil
}

var libraryStreaks = sync.OnceValue(func() []string {
	return []string{libraryMacro("stop_damage", "_streaks"), libraryMacro("stop_damage", "_streaks_by")}
})
