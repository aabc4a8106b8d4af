package analyze

import (
	"strings"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// The hypothesis windows per group on an engine (falsification and
// stop-damage with --by): windowsStep with the group as one more key, read
// by a TEMP _side_windows_by, and for stop-damage the experiment's groups,
// read by a TEMP _stop_groups_by; _judged_windows_by, hypothesis_sweep_by
// and stop_damage_by are the library's, unchanged.

// sideWindowsBy makes the in-memory database's _side_windows_by read one
// side's rows of _remote_hyp_windows: _judged_windows_by calls it once per
// side, and the side is told by the call's arguments (the control side's
// experiment, run or role and bounds, else the treatment side's). A call
// for another side, size or metric raises an error. grp is not checked:
// an expression over the columns of requests, it has no value here.
func (r *Remote) sideWindowsBy(s hypothesis.Sides, n, ms string) error {
	metric := sqllit.String(s.Metric)
	other := `error('_side_windows_by: the engine''s windows were computed for other arguments')`
	_, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO _side_windows_by(exp, grp, run_name, role_name, size_n, size_ms, from_ms, until_ms, metric) AS TABLE
    SELECT * EXCLUDE (role) FROM _remote_hyp_windows
    WHERE role = CASE WHEN size_n::BIGINT IS DISTINCT FROM `+n+` OR size_ms::DOUBLE IS DISTINCT FROM `+ms+`
                           OR metric IS DISTINCT FROM `+metric+` THEN `+other+`
                      WHEN `+sideCall(s.Control)+` THEN 'control'
                      WHEN `+sideCall(s.Treatment)+` THEN 'experiment'
                      ELSE `+other+` END`)
	return err
}

// sideCall is whether a call of _side_windows_by (or _side_input_by) reads
// side x: its experiment, its run (else no run and its role), its bounds.
func sideCall(x hypothesis.Side) string {
	q := `exp IS NOT DISTINCT FROM ` + sqllit.String(x.Experiment)
	if x.Run != "" {
		q += ` AND run_name IS NOT DISTINCT FROM ` + sqllit.String(x.Run)
	} else {
		q += ` AND run_name IS NULL AND role_name IS NOT DISTINCT FROM ` + sqllit.String(x.Role)
	}
	bound := func(b *float64) string {
		if b == nil {
			return "NULL"
		}
		return duckDouble(*b)
	}
	return q + ` AND from_ms::DOUBLE IS NOT DISTINCT FROM ` + bound(x.FromMs) + ` AND until_ms::DOUBLE IS NOT DISTINCT FROM ` + bound(x.UntilMs)
}

// checkStopGroups is checkStopDamageGroups on the engine: exp's rows
// counted per group (a NULL value is a group) → one row, the groups and
// the rows.
func (r *Remote) checkStopGroups(exp string, eg engineGroup, fields []string) error {
	if err := r.reduce("_remote_stop_group_count", "groups BIGINT, n_rows BIGINT", `
SELECT count(*) AS groups, coalesce(sum(n), 0L) AS n_rows
FROM (SELECT count(*) AS n
      FROM (SELECT experiment`+eg.sel()+` FROM requests WHERE experiment = `+engine.String(exp)+`)
      GROUP BY experiment`+eg.keys()+`)`); err != nil {
		return err
	}
	var groups, rows int64
	if err := r.Querier().QueryRow(`SELECT groups, n_rows FROM _remote_stop_group_count`).Scan(&groups, &rows); err != nil {
		return err
	}
	return stopDamageGroupsError(fields, groups, rows)
}

// stopGroups runs the step of _stop_groups_by, the distinct groups of the
// sides' experiments (one row per group comes back), and makes the
// in-memory database's _stop_groups_by read them, for these experiments
// only (a call with others raises an error).
func (r *Remote) stopGroups(e store.Experiment, s hypothesis.Sides, eg engineGroup) error {
	keys := strings.TrimPrefix(eg.keys(), ", ")
	exps := engine.String(e.Name) + ", " + engine.String(s.Control.Experiment) + ", " + engine.String(s.Treatment.Experiment)
	if err := r.reduce("_remote_stop_groups", strings.TrimPrefix(eg.cols(), ", "), `
SELECT `+keys+`
FROM (SELECT experiment`+eg.sel()+` FROM requests WHERE experiment IN (`+exps+`))
GROUP BY `+keys); err != nil {
		return err
	}
	_, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP MACRO _stop_groups_by(exp, grp, control_exp, treatment_exp) AS TABLE
    SELECT DISTINCT `+eg.gk()+` AS gk FROM _remote_stop_groups
    WHERE CASE WHEN exp IS DISTINCT FROM `+sqllit.String(e.Name)+`
                    OR coalesce(control_exp, exp) IS DISTINCT FROM `+sqllit.String(s.Control.Experiment)+`
                    OR coalesce(treatment_exp, exp) IS DISTINCT FROM `+sqllit.String(s.Treatment.Experiment)+`
               THEN error('_stop_groups_by: the engine''s groups were computed for other arguments') ELSE true END`)
	return err
}
