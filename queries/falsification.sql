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
-- The same macros judge any hypothesis (hypothesis_sweep, in windows.sql): any two
-- runs (control_run, treatment_run, each maybe of another experiment:
-- control_exp, treatment_exp), or one part of a run against the rest
-- (split_ms: the rows before it are the baseline, the others the
-- treatment, windows counted within each part), on any metric of
-- side_windows. The control side is named "control" and the treatment side
-- "experiment" in the columns, as the roles they default to.
-- Uses: windows
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
-- Units: falsification: margin=share baseline=(metric) control_falsified=- control_windows=-
-- Units: falsification: experiment_falsified=- experiment_windows=- first_falsified_window=-
-- Units: falsification_by: grp=- margin=share baseline=(metric) control_falsified=- control_windows=-
-- Units: falsification_by: experiment_falsified=- experiment_windows=- first_falsified_window=-

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

-- falsification per group (docs/by.md): falsification_by(exp, grp, ...)
-- gives grp, the group's value, then falsification's columns, ordered by
-- grp, then margin; each group is read as a log of its own
-- (hypothesis_sweep_by), its baseline from its own control windows.
CREATE OR REPLACE MACRO falsification_by(exp, grp, size_n := NULL, size_ms := NULL, margins := [0, 0.05, 0.10, 0.20],
        metric := 'ok_share', control_exp := NULL, control_run := NULL, control_role := NULL,
        treatment_exp := NULL, treatment_run := NULL, treatment_role := NULL, split_ms := NULL) AS TABLE
    SELECT s.grp, margins[s.i]::DOUBLE AS margin, s.baseline, s.control_falsified, s.control_windows,
           s.experiment_falsified, s.experiment_windows, s.first_falsified_window
    FROM hypothesis_sweep_by(exp, grp, list_transform(margins, lambda m: _margin_threshold(metric, m)),
                             size_n := size_n, size_ms := size_ms, metric := metric,
                             control_exp := control_exp, control_run := control_run, control_role := control_role,
                             treatment_exp := treatment_exp, treatment_run := treatment_run,
                             treatment_role := treatment_role, split_ms := split_ms) s
    ORDER BY s.grp, margin;
