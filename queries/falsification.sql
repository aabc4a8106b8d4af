-- falsification: the steady-state hypothesis swept over margins.
--
-- Question: with the hypothesis "every window keeps an ok share of at least
-- baseline - margin", how many windows falsify it in the control run (false
-- alarms) and in the experiment run (detections), for each margin?
-- The baseline is the mean of the control run's per-window ok shares. A
-- window is falsified when its share is strictly below baseline - margin;
-- the comparison is done in integers (the baseline as the exact fraction
-- sl / (w * l), the margin in millionths), so a tie never falsifies. Windows
-- whose sizes have a least common multiple beyond HUGEINT raise an
-- out-of-range error rather than round.
-- Parameters:
--   exp      VARCHAR    experiment
--   size_n   BIGINT     requests per window, or NULL
--   size_ms  DOUBLE     window length in ms, or NULL
--   margins  DECIMAL[]  margins as shares, e.g. [0, 0.05, 0.10, 0.20]
-- Columns:
--   margin                  DOUBLE  share (0-1) subtracted from the baseline
--   baseline                DOUBLE  share (0-1), mean control ok share per window
--   control_falsified       BIGINT  control windows below the threshold
--   control_windows         BIGINT  control windows
--   experiment_falsified    BIGINT  experiment windows below the threshold
--   experiment_windows      BIGINT  experiment windows
--   first_falsified_window  BIGINT  1-based window number; NULL when none
CREATE OR REPLACE MACRO _window_counts(exp, size_n, size_ms) AS TABLE
    SELECT 'control' AS role, * FROM windows(exp, 'control', size_n := size_n, size_ms := size_ms)
    UNION ALL
    SELECT 'experiment' AS role, * FROM windows(exp, 'experiment', size_n := size_n, size_ms := size_ms);

-- The baseline as an exact fraction: sum of ok_i * (l / n_i) over w windows,
-- l the least common multiple of the window sizes. _lcm_of and _scaled_ok
-- are aggregates over the control windows.
CREATE OR REPLACE MACRO _lcm_of(n) AS list_reduce(list(DISTINCT n::HUGEINT), lambda a, b: lcm(a, b));
CREATE OR REPLACE MACRO _scaled_ok(ok, n, l) AS sum(ok::HUGEINT * (l // n));

-- The control windows are counted once (MATERIALIZED): counting them means
-- numbering the run's rows.
CREATE OR REPLACE MACRO _baseline(exp, size_n, size_ms) AS TABLE
    WITH c AS MATERIALIZED (SELECT requests, ok FROM windows(exp, 'control', size_n := size_n, size_ms := size_ms))
    SELECT count(*)::HUGEINT AS w, any_value(l) AS l, _scaled_ok(ok, requests, l) AS sl
    FROM c, (SELECT _lcm_of(requests) AS l FROM c);

-- Both roles' windows, each with the control baseline (w, l, sl) as
-- _baseline computes it: what falsification and stop_damage judge. Every
-- window is counted once.
CREATE OR REPLACE MACRO _judged_windows(exp, size_n, size_ms) AS TABLE
    WITH c AS MATERIALIZED (SELECT * FROM _window_counts(exp, size_n, size_ms)),
    b AS (
        SELECT count(*)::HUGEINT AS w, any_value(l) AS l, _scaled_ok(ok, requests, l) AS sl
        FROM c, (SELECT _lcm_of(requests) AS l FROM c WHERE role = 'control')
        WHERE role = 'control'
    )
    SELECT c.*, b.w, b.l, b.sl FROM c, b;

-- ok / n < sl / (w l) - margin, multiplied out by n w l 10^6.
CREATE OR REPLACE MACRO _falsified(ok, n, sl, w, l, margin) AS
    ok::HUGEINT * w * l * 1000000
        < sl * 1000000 * n - round(margin * 1000000)::HUGEINT * w * l * n;

CREATE OR REPLACE MACRO falsification(exp, size_n := NULL, size_ms := NULL, margins := [0, 0.05, 0.10, 0.20]) AS TABLE
    WITH m AS (SELECT unnest(margins) AS margin),
    v AS (
        SELECT m.margin, c.role, c.window_no, _falsified(c.ok, c.requests, c.sl, c.w, c.l, m.margin) AS falsified,
               c.sl / (c.w * c.l) AS baseline
        FROM _judged_windows(exp, size_n, size_ms) c, m
        WHERE c.w > 0
    )
    SELECT margin::DOUBLE AS margin,
           any_value(baseline)::DOUBLE AS baseline,
           count(*) FILTER (WHERE role = 'control' AND falsified) AS control_falsified,
           count(*) FILTER (WHERE role = 'control') AS control_windows,
           count(*) FILTER (WHERE role = 'experiment' AND falsified) AS experiment_falsified,
           count(*) FILTER (WHERE role = 'experiment') AS experiment_windows,
           min(window_no) FILTER (WHERE role = 'experiment' AND falsified) AS first_falsified_window
    FROM v
    GROUP BY margin
    ORDER BY margin;
