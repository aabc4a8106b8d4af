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
               CASE WHEN NOT _is_metric(metric) THEN error('unknown metric ' || metric || ': want ok_share, error_rate, p50, p90, p95, p99, p99.9, max, mean or throughput')
                    WHEN metric = 'ok_share' THEN ok
                    WHEN metric = 'error_rate' THEN requests - ok
                    WHEN metric = 'mean' THEN lat_sum
                    WHEN metric = 'throughput' THEN requests * 1000000
                    WHEN lat_weight > 1 THEN error('metric ' || metric || ': latency quantiles need one row per request, and this log has rows that stand for several (count > 1); use mean')
                    ELSE lat_q END::HUGEINT AS value_num,
               CASE WHEN metric IN ('ok_share', 'error_rate') THEN requests
                    WHEN metric = 'mean' THEN lat_n
                    WHEN metric = 'throughput' THEN
                        CASE WHEN size_ms IS NULL THEN error('metric throughput: requests per second need duration windows (e.g. size_ms := 10000)')
                             ELSE round(size_ms * 1000) END
                    WHEN lat_n > 0 THEN 1 END::HUGEINT AS value_den
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
