-- stop_damage: what a stop criterion costs, swept over k.
--
-- Question: if the experiment stops at the first window that completes k
-- consecutive falsified windows, how many tagged requests were damaged
-- before it stopped, and how much more than with k = 1?
-- Falsified as in falsification (exact, ties do not falsify). Streaks
-- count windows that have requests; with duration windows an empty window
-- neither breaks nor extends a streak.
-- Parameters:
--   exp      VARCHAR   experiment
--   size_n   BIGINT    requests per window, or NULL
--   size_ms  DOUBLE    window length in ms, or NULL
--   margin   DECIMAL   share subtracted from the baseline, e.g. 0.10
--   ks       BIGINT[]  consecutive falsified windows that stop, e.g. [1, 2, 3, 4]
-- Columns:
--   k                  BIGINT  consecutive falsified windows that stop the experiment
--   stop_window        BIGINT  1-based window at which it stops; NULL when it never does
--   damage_until_stop  BIGINT  requests, tagged and not ok, in windows up to the stop (all when no stop)
--   extra_over_k1      BIGINT  requests, damage_until_stop minus that of k = 1
--   total_damage       BIGINT  requests, tagged and not ok, in the whole experiment run
CREATE OR REPLACE MACRO _streaks(exp, size_n, size_ms, margin) AS TABLE
    WITH v AS (
        SELECT c.window_no, c.requests, c.ok, c.damage,
               _falsified(c.ok, c.requests, c.sl, c.w, c.l, margin) AS falsified,
               row_number() OVER (ORDER BY c.window_no) AS ord
        FROM _judged_windows(exp, size_n, size_ms) c
        WHERE c.role = 'experiment' AND c.w > 0
    )
    SELECT *, ord - max(CASE WHEN falsified THEN 0 ELSE ord END) OVER (ORDER BY ord) AS streak
    FROM v;

-- The streaks are computed once (MATERIALIZED) and read by every k.
CREATE OR REPLACE MACRO stop_damage(exp, size_n := NULL, size_ms := NULL, margin := 0.10, ks := [1, 2, 3, 4]) AS TABLE
    WITH s AS MATERIALIZED (SELECT * FROM _streaks(exp, size_n, size_ms, margin)),
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
