-- stop_damage: what a stop criterion costs, swept over k.
--
-- Question: if the experiment stops at the first window that completes k
-- consecutive falsified windows, how many tagged requests were damaged
-- before it stopped, and how much more than with k = 1?
-- Falsified as in falsification (exact, ties do not falsify). Streaks
-- count windows that have a value; with duration windows an empty window,
-- and with latency metrics a window without a latency, neither breaks nor
-- extends a streak. Any hypothesis of hypothesis_sweep can be given (metric,
-- the sides, split_ms, and the threshold as f and a; without them, margin
-- below the baseline). Damage is tagged requests not ok, or every treatment
-- request not ok when the treatment side has no tagged request.
-- Uses: windows
-- Parameters:
--   exp      VARCHAR   experiment
--   size_n   BIGINT    requests per window, or NULL
--   size_ms  DOUBLE    window length in ms, or NULL
--   margin   DECIMAL   share subtracted from the baseline, e.g. 0.10
--   ks       BIGINT[]  consecutive falsified windows that stop, e.g. [1, 2, 3, 4]
--   metric, control_*, treatment_*, split_ms   as in falsification
--   f, a     HUGEINT   a threshold as in hypothesis_sweep (default: from margin)
-- Columns:
--   k                  BIGINT  consecutive falsified windows that stop the experiment
--   stop_window        BIGINT  1-based window at which it stops; NULL when it never does
--   damage_until_stop  BIGINT  requests, tagged and not ok, in windows up to the stop (all when no stop)
--   extra_over_k1      BIGINT  requests, damage_until_stop minus that of k = 1
--   total_damage       BIGINT  requests, tagged and not ok, in the whole experiment run
-- Units: stop_damage: k=- stop_window=- damage_until_stop=requests extra_over_k1=requests
-- Units: stop_damage: total_damage=requests
-- Units: stop_damage_by: grp=- k=- stop_window=- damage_until_stop=requests extra_over_k1=requests
-- Units: stop_damage_by: total_damage=requests
CREATE OR REPLACE MACRO _streaks(exp, size_n, size_ms, metric, f, a, control_exp, control_run, control_role,
        treatment_exp, treatment_run, treatment_role, split_ms) AS TABLE
    WITH v AS (
        SELECT c.window_no, c.requests, c.ok, c.damage, c.value_den IS NOT NULL AS valued,
               _breaks(c.value_num, c.value_den, c.sl, c.w, c.l, f, a, _metric_lower_bad(metric)) AS falsified
        FROM _judged_windows(exp, size_n, size_ms, metric, control_exp, control_run, control_role,
                             treatment_exp, treatment_run, treatment_role, split_ms) c
        WHERE c.role = 'experiment' AND (c.w > 0 OR f = 0)
    ),
    -- ord numbers the windows that have a value. Not count(*) FILTER (...)
    -- OVER (...): DuckDB 1.5.6 takes seconds for that over 125 k windows,
    -- where a sum over a ROWS frame streams.
    o AS (SELECT *, sum(valued::INTEGER) OVER (ORDER BY window_no ROWS UNBOUNDED PRECEDING) AS ord FROM v)
    SELECT *, ord - coalesce(max(CASE WHEN valued AND NOT falsified THEN ord END)
                                 OVER (ORDER BY window_no ROWS UNBOUNDED PRECEDING), 0) AS streak
    FROM o;

-- The streaks are computed once (MATERIALIZED) and read by every k.
CREATE OR REPLACE MACRO stop_damage(exp, size_n := NULL, size_ms := NULL, margin := 0.10, ks := [1, 2, 3, 4],
        metric := 'ok_share', f := NULL, a := NULL, control_exp := NULL, control_run := NULL, control_role := NULL,
        treatment_exp := NULL, treatment_run := NULL, treatment_role := NULL, split_ms := NULL) AS TABLE
    WITH s AS MATERIALIZED (
        SELECT * FROM _streaks(exp, size_n, size_ms, metric,
                               coalesce(f, _margin_threshold(metric, margin).f),
                               coalesce(a, _margin_threshold(metric, margin).a),
                               control_exp, control_run, control_role, treatment_exp, treatment_run, treatment_role, split_ms)
    ),
    stops AS (
        SELECT k, (SELECT min(window_no) FROM s WHERE streak >= k) AS stop_window
        FROM (SELECT unnest(list_distinct(list_append(ks, 1))) AS k)
    ),
    dmg AS (
        SELECT k, stop_window,
               (SELECT coalesce(sum(damage), 0) FROM s WHERE stop_window IS NULL OR window_no <= stop_window) AS damage_until_stop
        FROM stops
    )
    SELECT k::BIGINT AS k, stop_window,
           damage_until_stop::BIGINT AS damage_until_stop,
           (damage_until_stop - (SELECT damage_until_stop FROM dmg WHERE k = 1))::BIGINT AS extra_over_k1,
           (SELECT coalesce(sum(damage), 0) FROM s)::BIGINT AS total_damage
    FROM dmg
    WHERE list_contains(ks, k)
    ORDER BY k;

-- stop damage per group (docs/by.md): stop_damage_by(exp, grp, ...) gives
-- grp, the group's value, then stop_damage's columns, ordered by grp, then
-- k; each group is read as a log of its own (_judged_windows_by), its
-- streaks over its own windows. Every group of the sides' experiments has
-- its rows, as stop_damage gives them for a log without a treatment window.
CREATE OR REPLACE MACRO _streaks_by(exp, grp, size_n, size_ms, metric, f, a, control_exp, control_run, control_role,
        treatment_exp, treatment_run, treatment_role, split_ms) AS TABLE
    WITH v AS (
        SELECT c.gk, c.window_no, c.requests, c.ok, c.damage, c.value_den IS NOT NULL AS valued,
               _breaks(c.value_num, c.value_den, c.sl, c.w, c.l, f, a, _metric_lower_bad(metric)) AS falsified
        FROM _judged_windows_by(exp, grp, size_n, size_ms, metric, control_exp, control_run, control_role,
                                treatment_exp, treatment_run, treatment_role, split_ms) c
        WHERE c.role = 'experiment' AND (c.w > 0 OR f = 0)
    ),
    o AS (SELECT *, sum(valued::INTEGER) OVER (PARTITION BY gk ORDER BY window_no ROWS UNBOUNDED PRECEDING) AS ord FROM v)
    SELECT *, ord - coalesce(max(CASE WHEN valued AND NOT falsified THEN ord END)
                                 OVER (PARTITION BY gk ORDER BY window_no ROWS UNBOUNDED PRECEDING), 0) AS streak
    FROM o;

-- The groups stop_damage_by gives rows to: those of every row of the
-- sides' experiments (any role or run).
CREATE OR REPLACE MACRO _stop_groups_by(exp, grp, control_exp, treatment_exp) AS TABLE
    SELECT DISTINCT {'v': grp} AS gk FROM requests
    WHERE experiment IN (exp, coalesce(control_exp, exp), coalesce(treatment_exp, exp));

CREATE OR REPLACE MACRO stop_damage_by(exp, grp, size_n := NULL, size_ms := NULL, margin := 0.10, ks := [1, 2, 3, 4],
        metric := 'ok_share', f := NULL, a := NULL, control_exp := NULL, control_run := NULL, control_role := NULL,
        treatment_exp := NULL, treatment_run := NULL, treatment_role := NULL, split_ms := NULL) AS TABLE
    WITH s AS MATERIALIZED (
        SELECT * FROM _streaks_by(exp, grp, size_n, size_ms, metric,
                                  coalesce(f, _margin_threshold(metric, margin).f),
                                  coalesce(a, _margin_threshold(metric, margin).a),
                                  control_exp, control_run, control_role, treatment_exp, treatment_run, treatment_role, split_ms)
    ),
    gs AS (SELECT * FROM _stop_groups_by(exp, grp, control_exp, treatment_exp)),
    stops AS (
        SELECT gs.gk, kk.k, min(s.window_no) AS stop_window
        FROM gs CROSS JOIN (SELECT unnest(list_distinct(list_append(ks, 1))) AS k) kk
        LEFT JOIN s ON s.gk = gs.gk AND s.streak >= kk.k
        GROUP BY gs.gk, kk.k
    ),
    dmg AS (
        SELECT st.gk, st.k, st.stop_window, coalesce(sum(s.damage), 0) AS damage_until_stop
        FROM stops st LEFT JOIN s ON s.gk = st.gk AND (st.stop_window IS NULL OR s.window_no <= st.stop_window)
        GROUP BY st.gk, st.k, st.stop_window
    ),
    tot AS (SELECT gs.gk, coalesce(sum(s.damage), 0) AS total FROM gs LEFT JOIN s ON s.gk = gs.gk GROUP BY gs.gk)
    SELECT d.gk.v AS grp, d.k::BIGINT AS k, d.stop_window,
           d.damage_until_stop::BIGINT AS damage_until_stop,
           (d.damage_until_stop - d1.damage_until_stop)::BIGINT AS extra_over_k1,
           tot.total::BIGINT AS total_damage
    FROM dmg d JOIN dmg d1 ON d1.gk = d.gk AND d1.k = 1 JOIN tot ON tot.gk = d.gk
    WHERE list_contains(ks, d.k)
    ORDER BY d.gk, d.k;
