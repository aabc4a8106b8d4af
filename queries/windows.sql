-- windows: per-window counts of one role's run in an experiment.
--
-- Question: how many requests fell in each window, how many were answered
-- ok, and how many tagged requests were damaged? The steady-state
-- hypothesis, falsification, stop-damage and replay all start here.
-- Count windows (size_n) follow request order (seq); duration windows
-- (size_ms) follow t_ms, aligned at 0, and skip rows without t_ms. A row
-- with a count column stands for that many requests. Windows without any
-- request do not appear.
-- Parameters:
--   exp        VARCHAR  experiment
--   role_name  VARCHAR  'control' or 'experiment'
--   size_n     BIGINT   requests per window (count windows), or NULL
--   size_ms    DOUBLE   window length in ms (duration windows), or NULL
-- Columns:
--   window      BIGINT  1-based window number
--   first_t_ms  DOUBLE  ms, earliest t_ms in the window (NULL without t_ms)
--   last_t_ms   DOUBLE  ms, latest t_ms in the window (NULL without t_ms)
--   requests    BIGINT  requests in the window
--   ok          BIGINT  requests answered ok
--   damage      BIGINT  tagged requests not answered ok
-- Units: windows: window_no=- first_t_ms=ms last_t_ms=ms requests=requests ok=requests
-- Units: windows: damage=requests
-- Units: side_windows: window_no=- first_t_ms=ms last_t_ms=ms requests=requests ok=requests
-- Units: side_windows: damage=requests tagged=requests value_num=- value_den=- value=(metric)
-- Units: hypothesis_sweep: i=- baseline=(metric) threshold=(metric) control_falsified=-
-- Units: hypothesis_sweep: control_windows=- experiment_falsified=- experiment_windows=-
-- Units: hypothesis_sweep: first_falsified_window=-
-- Units: hypothesis_sweep_by: grp=- i=- baseline=(metric) threshold=(metric) control_falsified=-
-- Units: hypothesis_sweep_by: control_windows=- experiment_falsified=- experiment_windows=-
-- Units: hypothesis_sweep_by: first_falsified_window=-

-- One side of a hypothesis: the rows of one run of an experiment
-- (run_name), or of every run with a role (role_name, when run_name is
-- NULL), keeping t_ms in [from_ms, until_ms) when those are given (the two
-- parts of a time split). lat_us, the latency rounded to the microsecond, is
-- carried only when need_lat (a latency metric): the other metrics never
-- read it. With skip, no row is read (a scalar the plan decides late: the
-- scan then costs nothing).
CREATE OR REPLACE MACRO _side_input(exp, run_name, role_name, from_ms, until_ms, need_lat, skip) AS TABLE
    SELECT run, seq, run_pos, t_ms, count, outcome = 'ok' AS ok, tagged, tagged AND outcome <> 'ok' AS damaged,
           CASE WHEN need_lat THEN round(latency_ms * 1000)::BIGINT END AS lat_us
    FROM requests
    WHERE NOT skip AND experiment = exp
      AND CASE WHEN run_name IS NULL THEN role = role_name ELSE run = run_name END
      AND (from_ms IS NULL OR t_ms >= from_ms)
      AND (until_ms IS NULL OR t_ms < until_ms);

-- The shape of a side's rows: how many runs; whether a single run's seqs
-- are contiguous (no other row in between: a run logged on its own); and
-- whether every run's rows carry dense positions (run_pos, kept at ingest:
-- the side holds the whole of each run, or a part of it in a row, as a time
-- split of rows in time order does), which makes a row's position a sum
-- instead of a sort. first_pos and off are per run: its first position,
-- and the rows of the runs named before it; _side_rows sums them up.
CREATE OR REPLACE MACRO _side_runs(exp, run_name, role_name, from_ms, until_ms, skip) AS TABLE
    SELECT run, count(*) AS n, min(seq) AS first_seq, max(seq) AS last_seq,
           min(run_pos) AS first_pos,
           count(run_pos) = count(*) AND max(run_pos) - min(run_pos) + 1 = count(*) AS dense,
           sum(count(*)) OVER (ORDER BY run) - count(*) AS off
    FROM _side_input(exp, run_name, role_name, from_ms, until_ms, false, skip)
    GROUP BY run;

-- Each row's window, 0-based, with what the counts need. Exactly one branch
-- gets rows: numbering rows means sorting them, so a contiguous run takes
-- its position from seq alone, a single run with dense positions from
-- run_pos, several such runs from run_pos and their offsets (a join with
-- one row per run); only without positions does a single run sort by the
-- integer seq, and several runs by (run, seq). Duration windows need no
-- position; they are aligned at from_ms (0 without it). The branches name
-- their columns: DuckDB does not prune columns through UNION ALL. The runs
-- are read once (sr, materialized, also for the join), and the window
-- number is a BIGINT in every branch (a HUGEINT group key is slower).
CREATE OR REPLACE MACRO _side_rows(exp, run_name, role_name, from_ms, until_ms, size_n, size_ms, need_lat, skip) AS TABLE
    WITH sr AS MATERIALIZED (SELECT * FROM _side_runs(exp, run_name, role_name, from_ms, until_ms, skip OR size_ms IS NOT NULL)),
    shape AS MATERIALIZED (
        SELECT count(*) AS runs, min(first_seq) AS first_seq,
               count(*) = 1 AND max(last_seq) - min(first_seq) + 1 = sum(n) AS contiguous,
               coalesce(bool_and(dense), false) AS dense, min(first_pos) AS first_pos
        FROM sr
    )
    SELECT CASE WHEN size_n IS NOT NULL THEN ((seq - (SELECT first_seq FROM shape)) // size_n)::BIGINT
                ELSE error('windows: give size_n (requests) or size_ms (milliseconds)') END AS w,
           t_ms, count, ok, tagged, damaged, lat_us
    FROM _side_input(exp, run_name, role_name, from_ms, until_ms, need_lat, skip)
    WHERE size_ms IS NULL AND (SELECT contiguous FROM shape)
    UNION ALL
    SELECT CASE WHEN size_n IS NOT NULL THEN ((run_pos - (SELECT first_pos FROM shape)) // size_n)::BIGINT
                ELSE error('windows: give size_n (requests) or size_ms (milliseconds)') END,
           t_ms, count, ok, tagged, damaged, lat_us
    FROM _side_input(exp, run_name, role_name, from_ms, until_ms, need_lat, skip)
    WHERE size_ms IS NULL AND (SELECT runs = 1 AND NOT contiguous AND dense FROM shape)
    UNION ALL
    SELECT CASE WHEN size_n IS NOT NULL THEN ((i.run_pos - r.first_pos + r.off) // size_n)::BIGINT
                ELSE error('windows: give size_n (requests) or size_ms (milliseconds)') END,
           i.t_ms, i.count, i.ok, i.tagged, i.damaged, i.lat_us
    FROM _side_input(exp, run_name, role_name, from_ms, until_ms, need_lat, skip) i
    JOIN sr r ON i.run = r.run
    WHERE size_ms IS NULL AND (SELECT runs > 1 AND dense FROM shape)
    UNION ALL
    SELECT CASE WHEN size_n IS NOT NULL THEN ((row_number() OVER (ORDER BY seq) - 1) // size_n)::BIGINT
                ELSE error('windows: give size_n (requests) or size_ms (milliseconds)') END,
           t_ms, count, ok, tagged, damaged, lat_us
    FROM _side_input(exp, run_name, role_name, from_ms, until_ms, need_lat, skip)
    WHERE size_ms IS NULL AND (SELECT runs = 1 AND NOT contiguous AND NOT dense FROM shape)
    UNION ALL
    SELECT CASE WHEN size_n IS NOT NULL THEN ((row_number() OVER (ORDER BY run, seq) - 1) // size_n)::BIGINT
                ELSE error('windows: give size_n (requests) or size_ms (milliseconds)') END,
           t_ms, count, ok, tagged, damaged, lat_us
    FROM _side_input(exp, run_name, role_name, from_ms, until_ms, need_lat, skip)
    WHERE size_ms IS NULL AND (SELECT runs > 1 AND NOT dense FROM shape)
    UNION ALL
    SELECT floor((t_ms - coalesce(from_ms, 0)) / size_ms)::BIGINT, t_ms, count, ok, tagged, damaged, lat_us
    FROM _side_input(exp, run_name, role_name, from_ms, until_ms, need_lat, skip)
    WHERE size_ms IS NOT NULL AND t_ms IS NOT NULL;

-- The metrics a window is judged on, and how each is read.
--   ok_share    share  ok / requests
--   error_rate  share  (requests - ok) / requests
--   p50 p90 p95 p99 p99.9 max
--               ms     the nearest-rank quantile of the window's latencies:
--                      the ceil(q n)-th smallest of n (at least the 1st);
--                      max is q = 1. DuckDB's quantile_disc with a DECIMAL
--                      q computes exactly this, in integers.
--   mean        ms     sum of latencies / requests with a latency
--   throughput  req/s  requests / the window length (duration windows only)
-- Latencies are read rounded to the microsecond, so every value is an exact
-- fraction value_num / value_den (in microseconds for the latency metrics).
CREATE OR REPLACE MACRO _is_metric(metric) AS
    metric IN ('ok_share', 'error_rate', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean', 'throughput');
CREATE OR REPLACE MACRO _metric_q(metric) AS
    CASE metric WHEN 'p50' THEN 0.5 WHEN 'p90' THEN 0.9 WHEN 'p95' THEN 0.95 WHEN 'p99' THEN 0.99
                WHEN 'p99.9' THEN 0.999 WHEN 'max' THEN 1.0 END;
CREATE OR REPLACE MACRO _metric_needs_latency(metric) AS _metric_q(metric) IS NOT NULL OR metric = 'mean';
-- Lower values break the hypothesis for these; higher values for the others.
CREATE OR REPLACE MACRO _metric_lower_bad(metric) AS metric IN ('ok_share', 'throughput');
-- How many units of value_num / value_den make one of the metric's own
-- unit: 1000 microseconds a millisecond for latency.
CREATE OR REPLACE MACRO _metric_per(metric) AS CASE WHEN _metric_needs_latency(metric) THEN 1000 ELSE 1 END;

-- A window's metric as the exact fraction value_num / value_den: a share
-- of its requests, the mean latency (us) over the latencies, requests per
-- second of a size_ms window (x 10^6 / size_us), a latency quantile (us)
-- over 1. A window without a value has den 0 or NULL.
CREATE OR REPLACE MACRO _metric_num(metric, requests, ok, lat_sum, lat_q, lat_weight) AS
    CASE WHEN NOT _is_metric(metric) THEN error('unknown metric ' || metric || ': want ok_share, error_rate, p50, p90, p95, p99, p99.9, max, mean or throughput')
         WHEN metric = 'ok_share' THEN ok
         WHEN metric = 'error_rate' THEN requests - ok
         WHEN metric = 'mean' THEN lat_sum
         WHEN metric = 'throughput' THEN requests * 1000000
         WHEN lat_weight > 1 THEN error('metric ' || metric || ': latency quantiles need one row per request, and this log has rows that stand for several (count > 1); use mean')
         ELSE lat_q END::HUGEINT;

CREATE OR REPLACE MACRO _metric_den(metric, requests, lat_n, size_ms) AS
    CASE WHEN metric IN ('ok_share', 'error_rate') THEN requests
         WHEN metric = 'mean' THEN lat_n
         WHEN metric = 'throughput' THEN
             CASE WHEN size_ms IS NULL THEN error('metric throughput: requests per second need duration windows (e.g. size_ms := 10000)')
                  ELSE round(size_ms * 1000) END
         WHEN lat_n > 0 THEN 1 END::HUGEINT;

-- side_windows: the windows of one side with the metric's value.
-- Parameters: exp; run_name (or NULL: every run with role_name); size_n or
-- size_ms; from_ms, until_ms (a time split, or NULL); metric (above).
-- Columns: window_no, first_t_ms, last_t_ms, requests, ok, damage as in
-- windows; tagged (requests tagged); value_num, value_den (HUGEINT: the
-- metric's value as an exact fraction, in microseconds for latency; both
-- NULL when the window has no value, e.g. no latency); value (DOUBLE, in
-- the metric's unit).
CREATE OR REPLACE MACRO side_windows(exp, run_name := NULL, role_name := NULL, size_n := NULL, size_ms := NULL,
        from_ms := NULL, until_ms := NULL, metric := 'ok_share') AS TABLE
    -- Count windows over whole runs first try the common case in one pass:
    -- one run (the runs table says how many the side has) whose positions
    -- are 0 to n - 1, where a row's window is run_pos // size_n; the pass
    -- checks the positions as it groups (two whole runs both start at 0, so
    -- their rows outnumber the largest position), and only when the case
    -- does not hold are the runs read and the rows numbered below. Both
    -- paths list the same window aggregates: one macro returning them as a
    -- struct made every count-window analysis about 10 % slower.
    WITH fast AS MATERIALIZED (
        SELECT run_pos // size_n AS w,
               min(t_ms) AS first_t_ms,
               max(t_ms) AS last_t_ms,
               sum(count)::BIGINT AS requests,
               coalesce(sum(count) FILTER (WHERE ok), 0)::BIGINT AS ok,
               coalesce(sum(count) FILTER (WHERE damaged), 0)::BIGINT AS damage,
               coalesce(sum(count) FILTER (WHERE tagged), 0)::BIGINT AS tagged,
               sum(count) FILTER (WHERE lat_us IS NOT NULL) AS lat_n,
               sum(lat_us::HUGEINT * count) AS lat_sum,
               quantile_disc(lat_us, coalesce(_metric_q(metric), 0.5)) AS lat_q,
               max(count) FILTER (WHERE lat_us IS NOT NULL) AS lat_weight,
               count(*) AS n_rows, count(run_pos) AS n_pos, min(run_pos) AS min_pos, max(run_pos) AS max_pos
        FROM _side_input(exp, run_name, role_name, from_ms, until_ms, _metric_needs_latency(metric),
                         size_n IS NULL OR size_ms IS NOT NULL OR from_ms IS NOT NULL OR until_ms IS NOT NULL
                         -- a database from before run_pos: its first row tells, and the pass is skipped
                         OR coalesce((SELECT run_pos IS NULL FROM requests
                                      WHERE experiment = exp AND CASE WHEN run_name IS NULL THEN role = role_name ELSE run = run_name END
                                      LIMIT 1), true))
        GROUP BY w
    ),
    fast_ok AS MATERIALIZED (
        SELECT coalesce(sum(n_pos) = sum(n_rows) AND min(min_pos) = 0 AND max(max_pos) + 1 = sum(n_rows), false)
               AND (SELECT count(*) FROM runs
                    WHERE experiment = exp AND CASE WHEN run_name IS NULL THEN role = role_name ELSE run = run_name END) = 1 AS ok
        FROM fast
    ),
    r AS (SELECT * FROM _side_rows(exp, run_name, role_name, from_ms, until_ms, size_n, size_ms,
                                   _metric_needs_latency(metric), (SELECT ok FROM fast_ok))),
    g AS (
        SELECT w + 1 AS window_no,
               min(t_ms) AS first_t_ms,
               max(t_ms) AS last_t_ms,
               sum(count)::BIGINT AS requests,
               coalesce(sum(count) FILTER (WHERE ok), 0)::BIGINT AS ok,
               coalesce(sum(count) FILTER (WHERE damaged), 0)::BIGINT AS damage,
               coalesce(sum(count) FILTER (WHERE tagged), 0)::BIGINT AS tagged,
               sum(count) FILTER (WHERE lat_us IS NOT NULL) AS lat_n,
               sum(lat_us::HUGEINT * count) AS lat_sum,
               quantile_disc(lat_us, coalesce(_metric_q(metric), 0.5)) AS lat_q,
               max(count) FILTER (WHERE lat_us IS NOT NULL) AS lat_weight
        FROM r
        GROUP BY w
        UNION ALL
        SELECT w + 1, first_t_ms, last_t_ms, requests, ok, damage, tagged, lat_n, lat_sum, lat_q, lat_weight
        FROM fast
        WHERE (SELECT ok FROM fast_ok)
    ),
    v AS (
        SELECT window_no, first_t_ms, last_t_ms, requests, ok, damage, tagged,
               _metric_num(metric, requests, ok, lat_sum, lat_q, lat_weight) AS value_num,
               _metric_den(metric, requests, lat_n, size_ms) AS value_den
        FROM g
    )
    SELECT * REPLACE (CASE WHEN value_den > 0 THEN value_num END AS value_num,
                      CASE WHEN value_den > 0 THEN value_den END AS value_den),
           CASE WHEN value_den > 0 THEN value_num::DOUBLE / value_den / _metric_per(metric) END AS value
    FROM v
    ORDER BY window_no;

-- A role's rows with their position: 0-based, in (run, seq) order. This is
-- the definition of request order; the macros above compute the same
-- positions without numbering every row where they can.
CREATE OR REPLACE MACRO _role_rows(exp, role_name) AS TABLE
    SELECT *, row_number() OVER (ORDER BY run, seq) - 1 AS pos
    FROM requests
    WHERE experiment = exp AND role = role_name;

CREATE OR REPLACE MACRO windows(exp, role_name, size_n := NULL, size_ms := NULL) AS TABLE
    SELECT window_no, first_t_ms, last_t_ms, requests, ok, damage
    FROM side_windows(exp, role_name := role_name, size_n := size_n, size_ms := size_ms);

-- The hypothesis machinery shared by falsification, stop_damage, judge and
-- replay: both sides' windows judged against a threshold (hypothesis_sweep
-- and its helpers).

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

-- The experiment window shared by blast_radius and the plan counts
-- (experiment_window).

-- The first position at or after start_at (NULL for NULL, as pos >= NULL).
CREATE OR REPLACE MACRO _first_pos(start_at) AS
    CASE WHEN start_at IS NOT NULL THEN greatest(ceil(start_at), 0)::BIGINT END;

-- The experiment run's rows from position start_at on, without their
-- position: the row at position k = _first_pos(start_at) and every row after
-- it in (run, seq) order. That row is found without numbering every row
-- (which means sorting them): count the rows of each block of 65536 seqs,
-- find the block that holds position k, and number that block's rows alone
-- (read as a range of seq, which DuckDB's join filter turns into a range
-- scan of that block: seq // 65536 = b read every row).
-- No CTE is read twice: DuckDB materializes such a CTE, and a query with a
-- materialized CTE reads every column of the table, needed or not.
CREATE OR REPLACE MACRO _experiment_rows(exp, start_at) AS TABLE
    WITH blocks AS (
        SELECT run, seq // 65536 AS b, count(*) AS n
        FROM requests
        WHERE experiment = exp AND role = 'experiment'
        GROUP BY ALL
    ),
    hit AS (
        SELECT run, b, before
        FROM (SELECT run, b, n, sum(n) OVER (ORDER BY run, b ROWS UNBOUNDED PRECEDING) - n AS before FROM blocks)
        WHERE before <= _first_pos(start_at) AND _first_pos(start_at) < before + n
    ),
    first AS (
        SELECT r.run, r.seq
        FROM requests r, hit
        WHERE r.experiment = exp AND r.role = 'experiment' AND r.run = hit.run
          AND r.seq >= hit.b * 65536 AND r.seq < hit.b * 65536 + 65536
        QUALIFY hit.before + row_number() OVER (ORDER BY r.seq) - 1 = _first_pos(start_at)
    )
    SELECT r.*
    FROM requests r, first f
    WHERE r.experiment = exp AND r.role = 'experiment' AND (r.run > f.run OR (r.run = f.run AND r.seq >= f.seq));

-- The same rows with their position (0-based, in request order). Numbering
-- them sorts the rows; blast_radius itself needs no position.
CREATE OR REPLACE MACRO experiment_window(exp, start_at) AS TABLE
    SELECT *, _first_pos(start_at) + row_number() OVER (ORDER BY run, seq) - 1 AS pos
    FROM _experiment_rows(exp, start_at);

-- --by (docs/by.md): the same windows per group. grp is an expression over
-- the columns of requests; each group, NULL included, is read as a log of
-- its own, so a count window holds N of the group's requests, numbered in
-- (run, seq) order within the group (_role_rows's order): one sort, where
-- side_windows's fast paths read the positions of the whole run. These
-- macros are apart from those above, which stay as fast as they are.

-- A side's rows as _side_input, with their group gk.
CREATE OR REPLACE MACRO _side_input_by(exp, grp, run_name, role_name, from_ms, until_ms, need_lat) AS TABLE
    SELECT {'v': grp} AS gk, run, seq, t_ms, count, outcome = 'ok' AS ok, tagged, tagged AND outcome <> 'ok' AS damaged,
           CASE WHEN need_lat THEN round(latency_ms * 1000)::BIGINT END AS lat_us
    FROM requests
    WHERE experiment = exp
      AND CASE WHEN run_name IS NULL THEN role = role_name ELSE run = run_name END
      AND (from_ms IS NULL OR t_ms >= from_ms)
      AND (until_ms IS NULL OR t_ms < until_ms);

-- A side's windows per group before their value. Count windows number
-- the rows in partitions of the group's hash by seq (numbering 'seq': the
-- side has one run) or by run and seq ('run'), or in partitions of the
-- group itself ('group'); with numbering NULL, no row is read.
CREATE OR REPLACE MACRO _side_aggregates_by(exp, grp, run_name, role_name, size_n, size_ms, from_ms, until_ms, metric,
                                            numbering) AS TABLE
    WITH r AS (
        SELECT gk, CASE WHEN size_n IS NOT NULL THEN ((row_number() OVER (PARTITION BY hash(gk) ORDER BY seq) - 1) // size_n)::BIGINT
                        ELSE error('windows: give size_n (requests) or size_ms (milliseconds)') END AS w,
               t_ms, count, ok, tagged, damaged, lat_us
        FROM _side_input_by(exp, grp, run_name, role_name, from_ms, until_ms, _metric_needs_latency(metric))
        WHERE numbering = 'seq' AND size_ms IS NULL
        UNION ALL
        SELECT gk, CASE WHEN size_n IS NOT NULL THEN ((row_number() OVER (PARTITION BY hash(gk) ORDER BY run, seq) - 1) // size_n)::BIGINT
                        ELSE error('windows: give size_n (requests) or size_ms (milliseconds)') END,
               t_ms, count, ok, tagged, damaged, lat_us
        FROM _side_input_by(exp, grp, run_name, role_name, from_ms, until_ms, _metric_needs_latency(metric))
        WHERE numbering = 'run' AND size_ms IS NULL
        UNION ALL
        SELECT gk, CASE WHEN size_n IS NOT NULL THEN ((row_number() OVER (PARTITION BY gk ORDER BY run, seq) - 1) // size_n)::BIGINT
                        ELSE error('windows: give size_n (requests) or size_ms (milliseconds)') END,
               t_ms, count, ok, tagged, damaged, lat_us
        FROM _side_input_by(exp, grp, run_name, role_name, from_ms, until_ms, _metric_needs_latency(metric))
        WHERE numbering = 'group' AND size_ms IS NULL
        UNION ALL
        SELECT gk, floor((t_ms - coalesce(from_ms, 0)) / size_ms)::BIGINT, t_ms, count, ok, tagged, damaged, lat_us
        FROM _side_input_by(exp, grp, run_name, role_name, from_ms, until_ms, _metric_needs_latency(metric))
        WHERE numbering IS NOT NULL AND size_ms IS NOT NULL AND t_ms IS NOT NULL
    )
    SELECT gk, w + 1 AS window_no,
           min(t_ms) AS first_t_ms,
           max(t_ms) AS last_t_ms,
           sum(count)::BIGINT AS requests,
           coalesce(sum(count) FILTER (WHERE ok), 0)::BIGINT AS ok,
           coalesce(sum(count) FILTER (WHERE damaged), 0)::BIGINT AS damage,
           coalesce(sum(count) FILTER (WHERE tagged), 0)::BIGINT AS tagged,
           sum(count) FILTER (WHERE lat_us IS NOT NULL) AS lat_n,
           sum(lat_us::HUGEINT * count) AS lat_sum,
           quantile_disc(lat_us, coalesce(_metric_q(metric), 0.5)) AS lat_q,
           max(count) FILTER (WHERE lat_us IS NOT NULL) AS lat_weight
    FROM r
    GROUP BY gk, w;

-- side_windows per group: its columns after gk, the group. A count
-- window's rows are numbered in partitions of the group's hash, not of the
-- group itself, and by seq alone when the side has one run: a sort whose
-- key holds the group (a struct) and the run cost twice the instructions
-- (issue 41). Two groups with one hash would be numbered as one, so the
-- windows are checked (as many hashes as groups) and, only when two groups
-- share a hash, numbered again by the group itself (the branch not taken
-- reads no row).
CREATE OR REPLACE MACRO _side_windows_by(exp, grp, run_name, role_name, size_n, size_ms, from_ms, until_ms, metric) AS TABLE
    WITH runs AS MATERIALIZED (
        SELECT count(*) AS n
        FROM (SELECT DISTINCT run FROM _side_input_by(exp, grp, run_name, role_name, from_ms, until_ms, false) WHERE size_ms IS NULL)
    ),
    h AS MATERIALIZED (
        SELECT * FROM _side_aggregates_by(exp, grp, run_name, role_name, size_n, size_ms, from_ms, until_ms, metric,
                                          CASE WHEN (SELECT n FROM runs) = 1 THEN 'seq' ELSE 'run' END)
    ),
    exact AS MATERIALIZED (SELECT count(DISTINCT gk) = count(DISTINCT hash(gk)) AS ok FROM h),
    g AS (
        SELECT * FROM h WHERE (SELECT ok FROM exact)
        UNION ALL
        SELECT * FROM _side_aggregates_by(exp, grp, run_name, role_name, size_n, size_ms, from_ms, until_ms, metric,
                                          CASE WHEN NOT (SELECT ok FROM exact) THEN 'group' END)
    ),
    v AS (
        SELECT gk, window_no, first_t_ms, last_t_ms, requests, ok, damage, tagged,
               _metric_num(metric, requests, ok, lat_sum, lat_q, lat_weight) AS value_num,
               _metric_den(metric, requests, lat_n, size_ms) AS value_den
        FROM g
    )
    SELECT * REPLACE (CASE WHEN value_den > 0 THEN value_num END AS value_num,
                      CASE WHEN value_den > 0 THEN value_den END AS value_den),
           CASE WHEN value_den > 0 THEN value_num::DOUBLE / value_den / _metric_per(metric) END AS value
    FROM v;

-- _judged_windows per group: each group's baseline and tags are its own;
-- a group without a control window has w 0, l 1 and sl 0, one without a
-- treatment request no tags.
CREATE OR REPLACE MACRO _judged_windows_by(exp, grp, size_n, size_ms, metric, control_exp, control_run, control_role,
        treatment_exp, treatment_run, treatment_role, split_ms) AS TABLE
    WITH c AS MATERIALIZED (
        SELECT 'control' AS role, * FROM _side_windows_by(coalesce(control_exp, exp), grp, control_run,
            coalesce(control_role, 'control'), size_n, size_ms, NULL, split_ms, metric)
        UNION ALL
        SELECT 'experiment' AS role, * FROM _side_windows_by(coalesce(treatment_exp, exp), grp, treatment_run,
            coalesce(treatment_role, 'experiment'), size_n, size_ms, split_ms, NULL, metric)
    ),
    ls AS (SELECT gk, _lcm_of(value_den) AS l FROM c WHERE role = 'control' AND value_den IS NOT NULL GROUP BY gk),
    b AS (
        SELECT gk, count(*)::HUGEINT AS w, any_value(l) AS l, _scaled_ok(value_num, value_den, l) AS sl
        FROM c JOIN ls USING (gk)
        WHERE role = 'control' AND value_den IS NOT NULL
        GROUP BY gk
    ),
    t AS (SELECT gk, coalesce(sum(tagged), 0) > 0 AS has_tags FROM c WHERE role = 'experiment' GROUP BY gk)
    SELECT c.* REPLACE (CASE WHEN coalesce(t.has_tags, false) THEN c.damage ELSE c.requests - c.ok END AS damage),
           coalesce(b.w, 0) AS w, coalesce(b.l, 1) AS l, coalesce(b.sl, 0) AS sl, coalesce(t.has_tags, false) AS has_tags
    FROM c LEFT JOIN b ON b.gk = c.gk LEFT JOIN t ON t.gk = c.gk;

-- hypothesis_sweep and hypothesis_sweep_by: one sweep over the windows of
-- _judged_windows (grouped false: gk NULL) or of _judged_windows_by (each
-- group gk judged on its own); the branch not taken reads no row.
CREATE OR REPLACE MACRO _sweep(exp, grp, grouped, thresholds, size_n, size_ms, metric, control_exp, control_run, control_role,
        treatment_exp, treatment_run, treatment_role, split_ms) AS TABLE
    WITH m AS (SELECT unnest(thresholds) AS th, generate_subscripts(thresholds, 1) AS i),
    c AS (
        SELECT NULL AS gk, * FROM _judged_windows(exp, size_n, size_ms, metric, control_exp, control_run, control_role,
                                                  treatment_exp, treatment_run, treatment_role, split_ms)
        WHERE NOT grouped
        UNION ALL BY NAME
        SELECT * FROM _judged_windows_by(exp, grp, size_n, size_ms, metric, control_exp, control_run, control_role,
                                         treatment_exp, treatment_run, treatment_role, split_ms)
        WHERE grouped
    ),
    v AS (
        SELECT c.gk, m.i, c.role, c.window_no, c.value_den IS NOT NULL AS valued,
               _breaks(c.value_num, c.value_den, c.sl, c.w, c.l, m.th.f, m.th.a, _metric_lower_bad(metric)) AS falsified,
               CASE WHEN c.w > 0 THEN c.sl / (c.w * c.l) END AS baseline,
               (m.th.f * CASE WHEN c.w > 0 THEN c.sl / (c.w * c.l) ELSE 0 END + m.th.a) / 1000000 AS threshold
        FROM c, m
        WHERE c.w > 0 OR m.th.f = 0
    )
    SELECT gk, i::BIGINT AS i,
           (any_value(baseline) / _metric_per(metric))::DOUBLE AS baseline,
           (any_value(threshold) / _metric_per(metric))::DOUBLE AS threshold,
           count(*) FILTER (WHERE role = 'control' AND falsified) AS control_falsified,
           count(*) FILTER (WHERE role = 'control' AND valued) AS control_windows,
           count(*) FILTER (WHERE role = 'experiment' AND falsified) AS experiment_falsified,
           count(*) FILTER (WHERE role = 'experiment' AND valued) AS experiment_windows,
           min(window_no) FILTER (WHERE role = 'experiment' AND falsified) AS first_falsified_window
    FROM v
    GROUP BY gk, i;

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
    SELECT * EXCLUDE (gk)
    FROM _sweep(exp, NULL, false, thresholds, size_n, size_ms, metric, control_exp, control_run, control_role,
                treatment_exp, treatment_run, treatment_role, split_ms)
    ORDER BY i;

-- hypothesis_sweep per group: hypothesis_sweep_by(exp, grp, thresholds,
-- ...) gives grp, the group's value, then hypothesis_sweep's columns,
-- ordered by grp, then i.
CREATE OR REPLACE MACRO hypothesis_sweep_by(exp, grp, thresholds, size_n := NULL, size_ms := NULL, metric := 'ok_share',
        control_exp := NULL, control_run := NULL, control_role := NULL,
        treatment_exp := NULL, treatment_run := NULL, treatment_role := NULL, split_ms := NULL) AS TABLE
    SELECT gk.v AS grp, * EXCLUDE (gk)
    FROM _sweep(exp, grp, true, thresholds, size_n, size_ms, metric, control_exp, control_run, control_role,
                treatment_exp, treatment_run, treatment_role, split_ms)
    ORDER BY gk, i;
