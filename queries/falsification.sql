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
--
-- The same macros judge any hypothesis (hypothesis_sweep below): any two
-- runs (control_run, treatment_run, each maybe of another experiment:
-- control_exp, treatment_exp), or one part of a run against the rest
-- (split_ms: the rows before it are the baseline, the others the
-- treatment, windows counted within each part), on any metric of
-- side_windows. The control side is named "control" and the treatment side
-- "experiment" in the columns, as the roles they default to.
-- Parameters:
--   exp      VARCHAR    experiment
--   size_n   BIGINT     requests per window, or NULL
--   size_ms  DOUBLE     window length in ms, or NULL
--   margins  DECIMAL[]  margins as shares, e.g. [0, 0.05, 0.10, 0.20]
--   metric   VARCHAR    ok_share (default) or error_rate (margins added)
--   control_exp, control_run, control_role        the baseline side (default: role control of exp)
--   treatment_exp, treatment_run, treatment_role  the treatment side (default: role experiment of exp)
--   split_ms DOUBLE     a time split of one side: baseline before, treatment from
-- Columns:
--   margin                  DOUBLE  share (0-1) subtracted from the baseline
--   baseline                DOUBLE  share (0-1), mean control ok share per window
--   control_falsified       BIGINT  control windows below the threshold
--   control_windows         BIGINT  control windows
--   experiment_falsified    BIGINT  experiment windows below the threshold
--   experiment_windows      BIGINT  experiment windows
--   first_falsified_window  BIGINT  1-based window number; NULL when none

-- Both sides' windows, in one query (DuckDB counts them side by side). The
-- control side's rows are those before split_ms, the treatment side's
-- those from it. replay reads it to load a recording.
CREATE OR REPLACE MACRO _hyp_windows(exp, size_n := NULL, size_ms := NULL, metric := 'ok_share',
        control_exp := NULL, control_run := NULL, control_role := NULL,
        treatment_exp := NULL, treatment_run := NULL, treatment_role := NULL, split_ms := NULL) AS TABLE
    SELECT 'control' AS role, * FROM side_windows(coalesce(control_exp, exp), run_name := control_run,
        role_name := coalesce(control_role, 'control'), size_n := size_n, size_ms := size_ms,
        until_ms := split_ms, metric := metric)
    UNION ALL
    SELECT 'experiment' AS role, * FROM side_windows(coalesce(treatment_exp, exp), run_name := treatment_run,
        role_name := coalesce(treatment_role, 'experiment'), size_n := size_n, size_ms := size_ms,
        from_ms := split_ms, metric := metric);

-- The baseline as an exact fraction: sum of num_i * (l / den_i) over the w
-- control windows that have a value, l the least common multiple of their
-- denominators. _lcm_of and _scaled_ok are aggregates over those windows.
CREATE OR REPLACE MACRO _lcm_of(n) AS list_reduce(list(DISTINCT n::HUGEINT), lambda a, b: lcm(a, b));
CREATE OR REPLACE MACRO _scaled_ok(ok, n, l) AS sum(ok::HUGEINT * (l // n));

-- The control run's ok-share baseline (w, l, sl), for callers that judge
-- windows of their own (the report's timeline).
CREATE OR REPLACE MACRO _baseline(exp, size_n, size_ms) AS TABLE
    WITH c AS MATERIALIZED (SELECT requests, ok FROM windows(exp, 'control', size_n := size_n, size_ms := size_ms))
    SELECT count(*)::HUGEINT AS w, any_value(l) AS l, _scaled_ok(ok, requests, l) AS sl
    FROM c, (SELECT _lcm_of(requests) AS l FROM c);

-- Both sides' windows, each with the control baseline (w, l, sl) and
-- whether the treatment side has tagged requests: damage is tagged
-- requests not ok when it has, else every treatment request not ok. Every
-- window is counted once (MATERIALIZED). Without any control window w is 0,
-- l 1 and sl 0: only absolute thresholds can be judged.
CREATE OR REPLACE MACRO _judged_windows(exp, size_n, size_ms, metric, control_exp, control_run, control_role,
        treatment_exp, treatment_run, treatment_role, split_ms) AS TABLE
    WITH c AS MATERIALIZED (
        SELECT * FROM _hyp_windows(exp, size_n := size_n, size_ms := size_ms, metric := metric,
                                   control_exp := control_exp, control_run := control_run, control_role := control_role,
                                   treatment_exp := treatment_exp, treatment_run := treatment_run,
                                   treatment_role := treatment_role, split_ms := split_ms)
    ),
    b AS (
        SELECT count(*)::HUGEINT AS w, coalesce(any_value(l), 1) AS l, coalesce(_scaled_ok(value_num, value_den, l), 0) AS sl
        FROM c, (SELECT coalesce(_lcm_of(value_den), 1) AS l FROM c WHERE role = 'control' AND value_den IS NOT NULL)
        WHERE role = 'control' AND value_den IS NOT NULL
    ),
    t AS (SELECT coalesce(sum(tagged), 0) > 0 AS has_tags FROM c WHERE role = 'experiment')
    SELECT c.* REPLACE (CASE WHEN t.has_tags THEN c.damage ELSE c.requests - c.ok END AS damage),
           b.w, b.l, b.sl, t.has_tags
    FROM c, b, t;

-- Whether value num / den breaks the threshold (f * sl / (w l) + a) / 10^6
-- (f and a in millionths; a in the units of num / den): strictly below it
-- when lower_bad, strictly above it otherwise, so a tie never breaks.
-- Multiplied out by den w l 10^6; w is taken as 1 when there is no
-- baseline (f is then 0). A window without a value breaks nothing.
CREATE OR REPLACE MACRO _breaks(num, den, sl, w, l, f, a, lower_bad) AS
    CASE WHEN num IS NULL THEN false
         WHEN lower_bad THEN num::HUGEINT * greatest(w, 1) * l * 1000000 < den * (f * sl + a * greatest(w, 1) * l)
         ELSE num::HUGEINT * greatest(w, 1) * l * 1000000 > den * (f * sl + a * greatest(w, 1) * l) END;

-- ok / n < sl / (w l) - margin, multiplied out by n w l 10^6.
CREATE OR REPLACE MACRO _falsified(ok, n, sl, w, l, margin) AS
    _breaks(ok, n, sl, w, l, 1000000, -round(margin * 1000000)::HUGEINT, true);

-- A margin as a threshold {f, a}: baseline - margin for a metric where
-- lower is bad, baseline + margin otherwise.
CREATE OR REPLACE MACRO _margin_threshold(metric, margin) AS
    {'f': 1000000::HUGEINT,
     'a': CASE WHEN _metric_lower_bad(metric) THEN -1 ELSE 1 END * round(margin * 1000000)::HUGEINT};

-- hypothesis_sweep: any hypothesis, swept over thresholds.
-- Parameters: exp, size_n, size_ms, metric and the sides as falsification;
--   thresholds  STRUCT(f HUGEINT, a HUGEINT)[]  threshold = (f * baseline + a) / 10^6,
--               f and a in millionths, a in the metric's exact unit
--               (shares; microseconds for latency; requests per second)
-- Columns:
--   i                       BIGINT  1-based position in thresholds
--   baseline                DOUBLE  metric unit, mean of the control windows' values (NULL without any)
--   threshold               DOUBLE  metric unit, the value a window must not go past
--   control_falsified       BIGINT  control windows past the threshold
--   control_windows         BIGINT  control windows with a value
--   experiment_falsified    BIGINT  treatment windows past the threshold
--   experiment_windows      BIGINT  treatment windows with a value
--   first_falsified_window  BIGINT  1-based treatment window number; NULL when none
-- A relative threshold (f <> 0) without a control window gives no row.
CREATE OR REPLACE MACRO hypothesis_sweep(exp, thresholds, size_n := NULL, size_ms := NULL, metric := 'ok_share',
        control_exp := NULL, control_run := NULL, control_role := NULL,
        treatment_exp := NULL, treatment_run := NULL, treatment_role := NULL, split_ms := NULL) AS TABLE
    WITH m AS (SELECT unnest(thresholds) AS th, generate_subscripts(thresholds, 1) AS i),
    v AS (
        SELECT m.i, c.role, c.window_no, c.value_den IS NOT NULL AS valued,
               _breaks(c.value_num, c.value_den, c.sl, c.w, c.l, m.th.f, m.th.a, _metric_lower_bad(metric)) AS falsified,
               CASE WHEN c.w > 0 THEN c.sl / (c.w * c.l) END AS baseline,
               (m.th.f * CASE WHEN c.w > 0 THEN c.sl / (c.w * c.l) ELSE 0 END + m.th.a) / 1000000 AS threshold
        FROM _judged_windows(exp, size_n, size_ms, metric, control_exp, control_run, control_role,
                             treatment_exp, treatment_run, treatment_role, split_ms) c, m
        WHERE c.w > 0 OR m.th.f = 0
    )
    SELECT i::BIGINT AS i,
           (any_value(baseline) / _metric_per(metric))::DOUBLE AS baseline,
           (any_value(threshold) / _metric_per(metric))::DOUBLE AS threshold,
           count(*) FILTER (WHERE role = 'control' AND falsified) AS control_falsified,
           count(*) FILTER (WHERE role = 'control' AND valued) AS control_windows,
           count(*) FILTER (WHERE role = 'experiment' AND falsified) AS experiment_falsified,
           count(*) FILTER (WHERE role = 'experiment' AND valued) AS experiment_windows,
           min(window_no) FILTER (WHERE role = 'experiment' AND falsified) AS first_falsified_window
    FROM v
    GROUP BY i
    ORDER BY i;

CREATE OR REPLACE MACRO falsification(exp, size_n := NULL, size_ms := NULL, margins := [0, 0.05, 0.10, 0.20],
        metric := 'ok_share', control_exp := NULL, control_run := NULL, control_role := NULL,
        treatment_exp := NULL, treatment_run := NULL, treatment_role := NULL, split_ms := NULL) AS TABLE
    SELECT margins[s.i]::DOUBLE AS margin, s.baseline, s.control_falsified, s.control_windows,
           s.experiment_falsified, s.experiment_windows, s.first_falsified_window
    FROM hypothesis_sweep(exp, list_transform(margins, lambda m: _margin_threshold(metric, m)),
                          size_n := size_n, size_ms := size_ms, metric := metric,
                          control_exp := control_exp, control_run := control_run, control_role := control_role,
                          treatment_exp := treatment_exp, treatment_run := treatment_run,
                          treatment_role := treatment_role, split_ms := split_ms) s
    ORDER BY margin;
