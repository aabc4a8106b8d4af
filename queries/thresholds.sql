-- thresholds: k6's threshold verdicts, recomputed from a recorded log.
--
-- Question: given k6 thresholds ("http_req_duration: p(95)<200",
-- "http_req_failed: rate<0.01"), which would pass, with what value, and
-- with abortOnFail, when would k6 have aborted the run and how many
-- requests had failed by then? threshold_windows asks the same of sliding
-- or tumbling windows, which k6 itself does not offer: when does a window
-- first break each threshold, and how many requests had failed by then?
--
-- A run is one test. Its clock starts at its first request's send (t_ms)
-- or first k6 point, whichever is earlier, and ends at its last sample, or
-- after duration_ms if that is later: samples are stamped when they are
-- taken, as k6 stamps them, so a request counts at t_ms + latency_ms (its
-- end). Counter rates divide by test time (at the end, by duration_ms).
-- Sinks, as k6's (metrics/sink.go):
--   trend    http_req_duration (latency_ms), the k6 timing attrs
--            (http_req_waiting from attrs.waiting_ms, ...), k6 trend points
--   rate     http_req_failed (outcome <> 'ok'; rows without outcome give no
--            sample), k6 rate points (value <> 0 is true)
--   counter  http_reqs (count), k6 counter points (the sum of values)
--   gauge    k6 gauge points (the last value)
-- A row with a count stands for count samples. k6 points are the events of
-- type k6_point; an event with no run belongs to every run of its file.
-- Submetric tags select samples whose tags all match: for requests,
-- status is the status column, expected_response is outcome = 'ok' as
-- 'true'/'false', any other tag is attrs->>tag; for events, attrs->>tag.
--
-- thresholds evaluates cumulatively, as k6's engine does
-- (internal/metrics/engine): every every_ms of test time over all samples
-- taken by then (a sample at exactly the tick counts), skipping empty sinks,
-- and once more at the end over everything, where an empty sink reads 0 (a
-- rate with no sample passes). An abortOnFail threshold aborts the run at
-- the first tick it fails once delay_ns < the tick (delayAbortEval); the
-- verdict printed is then the one of that tick. threshold_windows evaluates
-- each window (from, to] at its end: tumbling windows of window_ms from 0
-- (the first also holds time 0), or with sliding, the window_ms before every
-- tick of every_ms; the last window ends with the run. Empty windows are
-- skipped.
--
-- Values are k6's: min, max, the last gauge value, and percentiles as
-- TrendSink.P (sorted values, rank q * (n - 1), lo + (hi - lo) * f), to the
-- bit, compared in DOUBLE as k6 compares them. Decisions on sums are exact:
-- rate as trues op vx * total, avg as the sum op vx * n, counters as sum op
-- vx and sum * 1e9 op vx * (test ns), with values summed as DECIMAL(38,9)
-- (k6 sums floats in arrival order, so its avg can be a few ulps off and
-- decide a tie the other way; rewind decides it exactly).
-- Parameters:
--   exp          VARCHAR   experiment
--   specs        STRUCT[]  one per threshold: id INTEGER, name VARCHAR (the
--                metric as written, http_req_duration{status:200}), metric
--                VARCHAR (without tags), tags STRUCT(k VARCHAR, v VARCHAR)[],
--                kind VARCHAR (trend, rate, counter, gauge), agg VARCHAR
--                (avg, min, max, med, p, rate, count, value), q DOUBLE (p(95):
--                0.95, med: 0.5, else NULL), op VARCHAR (< <= > >= == === !=),
--                vd DOUBLE and vx DECIMAL(38,9) (the value), abort BOOLEAN,
--                delay_ns BIGINT (delayAbortEval, NULL for none), source
--                VARCHAR (the expression as written). rewind analyze
--                thresholds writes them from k6's syntax; e.g. p(95)<200:
--                {id: 1, name: 'http_req_duration', metric: 'http_req_duration',
--                tags: [], kind: 'trend', agg: 'p', q: 0.95, op: '<', vd: 200,
--                vx: 200, abort: false, delay_ns: NULL, source: 'p(95)<200'}
--   every_ms     BIGINT    ms between evaluations (k6: 2000)
--   duration_ms  DOUBLE    ms, test length for the end and for counter rates; default: to the last sample
--   window_ms    BIGINT    (threshold_windows) ms, window length
--   sliding      BOOLEAN   (threshold_windows) windows end at every tick, not every window_ms (default false)
-- Columns:
--   thresholds:
--   run             VARCHAR  run (one test)
--   metric          VARCHAR  metric as written, with its tags
--   threshold       VARCHAR  the expression
--   abort_on_fail   BOOLEAN  abortOnFail
--   samples         BIGINT   samples in the sink when k6 prints its verdict
--   value           DOUBLE   the aggregate k6 prints (ms, share or count); NULL for a rate without samples
--   pass            BOOLEAN  the verdict k6 prints: at the run's abort when it aborts, else at the end
--   first_fail_ms   DOUBLE   ms of test time, first evaluation at which it failed; NULL when never
--   abort_ms        DOUBLE   ms of test time, when this threshold aborts the run (abortOnFail; the run stops at
--                            the earliest of its thresholds'); NULL when it does not
--   failed_until    BIGINT   requests not ok taken by abort_ms, or without abortOnFail by first_fail_ms
--   failed_total    BIGINT   requests not ok in the run
--   threshold_windows:
--   run, metric, threshold  as above
--   windows             BIGINT  windows evaluated (with samples)
--   failed_windows      BIGINT  windows that break the threshold
--   first_fail_ms       DOUBLE  ms of test time, end of the first window that breaks it; NULL when none
--   first_fail_from_ms  DOUBLE  ms of test time, start of that window (exclusive, but 0 is included)
--   value               DOUBLE  the aggregate in that window
--   failed_until        BIGINT  requests not ok taken by first_fail_ms
--   failed_total        BIGINT  requests not ok in the run
-- Units: thresholds: run=- metric=- threshold=- abort_on_fail=- samples=- value=- pass=-
-- Units: thresholds: first_fail_ms=ms abort_ms=ms failed_until=requests failed_total=requests
-- Units: threshold_windows: run=- metric=- threshold=- windows=- failed_windows=- first_fail_ms=ms
-- Units: threshold_windows: first_fail_from_ms=ms value=- failed_until=requests
-- Units: threshold_windows: failed_total=requests
-- The specs as rows, one column per field.
CREATE OR REPLACE MACRO _th_specs(specs) AS TABLE
    SELECT unnest(s) FROM (SELECT unnest(specs) AS s);

CREATE OR REPLACE MACRO _th_cmp(a, op, b) AS
    CASE op WHEN '<' THEN a < b WHEN '<=' THEN a <= b WHEN '>' THEN a > b WHEN '>=' THEN a >= b
            WHEN '==' THEN a = b WHEN '===' THEN a = b WHEN '!=' THEN a <> b
            ELSE error('thresholds: unknown operator ' || op) END;

-- A request's tag as k6 would have tagged it.
CREATE OR REPLACE MACRO _th_req_tag(status, outcome, attrs, k) AS
    CASE k WHEN 'status' THEN status::VARCHAR
           WHEN 'expected_response' THEN CASE WHEN outcome IS NOT NULL THEN (outcome = 'ok')::VARCHAR END
           ELSE attrs ->> k END;

-- Times in integer ns (t_ms is kept to the µs, latency_ms to the ns), so
-- ticks and windows compare exactly.
CREATE OR REPLACE MACRO _th_requests(exp) AS TABLE
    SELECT run, file_id, seq, round(t_ms * 1e6)::BIGINT AS send_ns,
           round(t_ms * 1e6)::BIGINT + coalesce(round(latency_ms * 1e6)::BIGINT, 0) AS end_ns,
           latency_ms, outcome, status, count, attrs
    FROM requests
    WHERE experiment = exp AND t_ms IS NOT NULL;

CREATE OR REPLACE MACRO _th_points(exp) AS TABLE
    SELECT f.run, e.seq, round(e.t_ms * 1e6)::BIGINT AS at_ns, e.subject AS metric,
           TRY_CAST(e.state AS DOUBLE) AS v, e.attrs
    FROM events e
    JOIN (SELECT DISTINCT run, file_id FROM requests  -- only the files with points: most have none
          WHERE experiment = exp
            AND file_id IN (SELECT file_id FROM events WHERE experiment = exp AND type = 'k6_point')) f
      ON e.file_id = f.file_id AND (e.run = '' OR e.run = f.run)
    WHERE e.experiment = exp AND e.type = 'k6_point' AND e.t_ms IS NOT NULL;

-- A run's first send is its least t_ms in ns: rounding keeps the order, so
-- the least t_ms gives the least send_ns (no rounding per row for it). Its
-- last end is the greatest of its rows' ends in ns, two roundings a row
-- (most of a pass over every request: issue 41), but only a request sent
-- late enough can end last: one sent before cut ends before the request
-- its run sent last does, cut being the earliest of the runs' last sends
-- less the greatest latency, the size of the least one when negative (the
-- whole table's, from DuckDB's statistics: no scan) and 1 ms, far more
-- than the roundings. DuckDB skips the row groups whose statistics put
-- every t_ms before cut (TestThRunsEnds).
CREATE OR REPLACE MACRO _th_runs(exp, duration_ms) AS TABLE
    WITH r AS (
        SELECT run, min(t_ms) AS t0, max(t_ms) AS t1
        FROM requests WHERE experiment = exp AND t_ms IS NOT NULL GROUP BY run
    ),
    e AS (
        SELECT run, max(round(t_ms * 1e6)::BIGINT + coalesce(round(latency_ms * 1e6)::BIGINT, 0)) AS hi  -- _th_requests' end_ns
        FROM requests
        WHERE experiment = exp
          AND t_ms >= (SELECT min(r.t1) + any_value(l.lo) - any_value(l.hi) - 1  -- one subquery: DuckDB filters the scan by it
                       FROM r, (SELECT least(coalesce(min(latency_ms), 0), 0) AS lo,
                                       greatest(coalesce(max(latency_ms), 0), 0) AS hi FROM requests) l)
        GROUP BY run
    ),
    t AS (
        SELECT run, round(t0 * 1e6)::BIGINT AS lo, hi FROM r JOIN e USING (run)
        UNION ALL
        SELECT run, min(at_ns), max(at_ns) FROM _th_points(exp) GROUP BY run
    )
    SELECT run, min(lo) AS start_ns, max(hi) - min(lo) AS last_ns,
           coalesce(round(duration_ms * 1e6)::BIGINT, max(hi) - min(lo)) AS dur_ns
    FROM t GROUP BY run;

-- The moments each spec is evaluated at: t (ns of test time) over samples in
-- (lo, t], with covered ns of test time (for counter rates) and final for
-- the end of the run. window_ms NULL is k6's cumulative evaluation, whose end
-- sees every sample and divides counters by the test's length.
CREATE OR REPLACE MACRO _th_moments(exp, specs, every_ms, window_ms, sliding, duration_ms) AS TABLE
    WITH p AS (
        SELECT round(every_ms * 1e6)::BIGINT AS every_ns, round(window_ms * 1e6)::BIGINT AS window_ns,
               CASE WHEN window_ms IS NULL OR sliding THEN round(every_ms * 1e6)::BIGINT
                    ELSE round(window_ms * 1e6)::BIGINT END AS step_ns
    ),
    m AS (
        SELECT r.run, k * p.step_ns AS t, false AS final,
               CASE WHEN p.window_ns IS NULL THEN -1 ELSE k * p.step_ns - p.window_ns END AS lo
        FROM _th_runs(exp, duration_ms) r, p, range(1, greatest(r.dur_ns - 1, 0) // p.step_ns + 1) k(k)
        UNION ALL  -- the end: the test's length, or its last sample if that comes later
        SELECT r.run, greatest(r.dur_ns, r.last_ns), true,
               CASE WHEN p.window_ns IS NULL THEN -1
                    WHEN sliding THEN greatest(r.dur_ns, r.last_ns) - p.window_ns
                    ELSE greatest(greatest(r.dur_ns, r.last_ns) - 1, 0) // p.window_ns * p.window_ns END
        FROM _th_runs(exp, duration_ms) r, p
    )
    SELECT m.run, s.id, m.t, m.final, CASE WHEN m.lo < 0 OR m.lo = 0 AND NOT sliding THEN -1 ELSE m.lo END AS lo,
           CASE WHEN m.final AND window_ms IS NULL THEN r.dur_ns ELSE m.t - greatest(m.lo, 0) END AS covered
    FROM m JOIN _th_runs(exp, duration_ms) r USING (run), _th_specs(specs) s;

-- k6's TrendSink.P over n sorted values: rank q * (n - 1), linearly
-- interpolated as lo + (hi - lo) * f (DuckDB's quantile_cont interpolates
-- as lo * (1 - f) + hi * f, which can differ in the last bit). lo and hi are
-- the values at 0-based ranks floor and ceil of q * (n - 1): _th_k6_rank.
CREATE OR REPLACE MACRO _th_k6_rank(n, q, up) AS
    CASE WHEN up THEN ceil(q * (n::DOUBLE - 1.0::DOUBLE)) ELSE floor(q * (n::DOUBLE - 1.0::DOUBLE)) END;

CREATE OR REPLACE MACRO _th_k6_p(lo, hi, n, q) AS
    CASE n WHEN 0 THEN 0::DOUBLE WHEN 1 THEN lo ELSE
        lo + (hi - lo) * (q * (n::DOUBLE - 1.0::DOUBLE) - floor(q * (n::DOUBLE - 1.0::DOUBLE)))
    END;

-- A percentile's verdict without sorting each window: with lo and hi the
-- values at ranks frn and crn = frn or frn + 1, and c_lt, c_le the values
-- below and up to vd, lo < vd iff c_lt > frn (and so on), which decides
-- every case but vd between lo and hi. Then lo and hi are the nearest
-- values on each side of vd (a, b below; c, e above), and the verdict is
-- that of k6's own interpolation.
CREATE OR REPLACE MACRO _th_p_pass(op, vd, frn, crn, f, c_lt, c_le, a, b, c, e) AS
    CASE WHEN op = '<' OR op = '>=' THEN
             (CASE WHEN c_lt > crn THEN true WHEN c_lt <= frn THEN false ELSE a + (c - a) * f < vd END) = (op = '<')
         WHEN op = '<=' OR op = '>' THEN
             (CASE WHEN c_le > crn THEN true WHEN c_le <= frn THEN false ELSE b + (e - b) * f <= vd END) = (op = '<=')
         ELSE (CASE WHEN c_le <= frn OR c_lt > crn THEN false WHEN c_lt <= frn AND c_le > crn THEN true
                    WHEN c_lt = frn + 1 THEN a + (c - a) * f = vd ELSE b + (e - b) * f = vd END) = (op <> '!=')
    END;

-- Every evaluation of every spec: the aggregates over (lo, t], the value k6
-- would compute and the verdict; printed, the evaluation whose window's
-- percentile thresholds and threshold_windows print (the run's abort, else
-- its end; a window's first failing one). pass is NULL where k6 skips an empty sink
-- (every evaluation but the cumulative end); value_end and pass_end are what
-- k6's final evaluation gives the same samples (an empty sink reads 0).
-- value is NULL for percentiles, which need the window's values sorted: the
-- public macros compute it where they print it, from the rows that follow
-- the evaluations (final NULL): a percentile's samples, pw of value pv in
-- the bucket ending at t_ns (_th_bucket_values' rows per value).
-- How: each sample is first summed into its bucket, (c - g, c] for the
-- least multiple c of g at or after it, g being the step between
-- evaluations and window lengths' greatest common divisor; a run's last
-- bucket ends at its end and, for sliding windows, one also at the last
-- window's start. Every lo and t is then a bucket's end, every (lo, t] is a
-- run of whole buckets, and the sliding sums over the buckets (thousands of
-- rows) are exactly those over the samples (millions), whose own windowed
-- sums took 28 G instructions at 1 M rows (issue 41). The requests not ok
-- by each moment are summed the same way.
CREATE OR REPLACE MACRO _th_bucket(t, g, last_lo, end_ns) AS
    CASE WHEN t <= 0 THEN t
         WHEN t <= last_lo THEN least((t + g - 1) // g * g, last_lo)
         ELSE least((t + g - 1) // g * g, end_ns) END;

-- Each run's buckets: g, the bucket length; end_ns, where its last one
-- ends; last_lo, for sliding windows the last window's start; start_ns,
-- the run's start (_th_runs').
CREATE OR REPLACE MACRO _th_grid(exp, every_ms, window_ms, sliding, duration_ms) AS TABLE
    SELECT r.run, greatest(r.dur_ns, r.last_ns) AS end_ns,
           CASE WHEN sliding THEN greatest(r.dur_ns, r.last_ns) - p.window_ns END AS last_lo,
           CASE WHEN p.window_ns IS NULL THEN p.every_ns WHEN NOT sliding THEN p.window_ns
                ELSE gcd(p.every_ns, p.window_ns) END AS g,
           r.start_ns
    FROM _th_runs(exp, duration_ms) r,
         (SELECT round(every_ms * 1e6)::BIGINT AS every_ns, round(window_ms * 1e6)::BIGINT AS window_ns) p;

-- Every sample of every spec: t (ns of test time) and c, its bucket's end
-- (_th_bucket over the run's grid), v (trend and gauge values but a
-- percentile's), pv (a percentile's value, NULL for any other spec), d
-- (DECIMAL, the exact sum's term, only where a spec sums: avg, count,
-- rate), trues and total (rate; total NULL for a percentile, whose samples
-- _th_bucket_values counts and whose extremes are its value: no sums or
-- extremes per sample of the group's key), ord (gauge order), val (a
-- gauge's last value is asked). The spec's kind and agg are read once per
-- spec, as flags, not compared per row, and the grid, which holds the
-- run's start, is the one join per row (issue 41).
CREATE OR REPLACE MACRO _th_samples(exp, specs, every_ms, window_ms, sliding, duration_ms) AS TABLE
    WITH sp AS (
        SELECT id, metric, tags, len(tags) = 0 AS untagged, kind = 'trend' AS trend, kind = 'rate' AS rate, kind = 'counter' AS counter,
               agg IN ('p', 'med') AS p, agg IN ('avg', 'count', 'rate') AS sums, agg = 'value' AS val,
               list_position(['http_req_duration', 'http_req_blocked', 'http_req_connecting', 'http_req_tls_handshaking',
                              'http_req_sending', 'http_req_waiting', 'http_req_receiving'], metric) AS m
        FROM _th_specs(specs)
    ),
    g AS (SELECT * FROM _th_grid(exp, every_ms, window_ms, sliding, duration_ms)),
    rq AS NOT MATERIALIZED (  -- read twice below: once for rows, once (count > 1 only) for their copies
        SELECT q.run, s.id, s.trend, s.rate, s.counter, s.p, s.sums, s.val, q.end_ns - g.start_ns AS t,
               g.g, g.last_lo, g.end_ns AS grid_end, NULL::BIGINT AS ord, q.count, q.outcome,  -- ord: gauges (points) only
               CASE s.m WHEN 1 THEN q.latency_ms
                   WHEN 2 THEN TRY_CAST(q.attrs ->> 'blocked_ms' AS DOUBLE)
                   WHEN 3 THEN TRY_CAST(q.attrs ->> 'connecting_ms' AS DOUBLE)
                   WHEN 4 THEN TRY_CAST(q.attrs ->> 'tls_handshaking_ms' AS DOUBLE)
                   WHEN 5 THEN TRY_CAST(q.attrs ->> 'sending_ms' AS DOUBLE)
                   WHEN 6 THEN TRY_CAST(q.attrs ->> 'waiting_ms' AS DOUBLE)
                   WHEN 7 THEN TRY_CAST(q.attrs ->> 'receiving_ms' AS DOUBLE)
               END AS v
        FROM _th_requests(exp) q JOIN g USING (run), sp s
        WHERE s.metric IN ('http_req_duration', 'http_req_failed', 'http_reqs', 'http_req_blocked',
                           'http_req_connecting', 'http_req_tls_handshaking', 'http_req_sending',
                           'http_req_waiting', 'http_req_receiving')
          -- CASE, not OR, in the per-row conditions: DuckDB sorts the selection of
          -- an OR's matches, chunk by chunk (issue 41)
          AND CASE WHEN s.untagged THEN true ELSE coalesce(list_bool_and(list_transform(s.tags,
                  lambda g: coalesce(_th_req_tag(q.status, q.outcome, q.attrs, g.k) = g.v, false))), true) END
    ),
    pt AS (
        SELECT p.run, s.id, s.trend, s.rate, s.counter, s.p, s.sums, s.val, p.at_ns - g.start_ns AS t,
               g.g, g.last_lo, g.end_ns AS grid_end, p.seq AS ord, p.v
        FROM _th_points(exp) p JOIN g USING (run), sp s
        WHERE p.metric = s.metric AND p.v IS NOT NULL
          AND coalesce(list_bool_and(list_transform(s.tags,
                  lambda g: coalesce(p.attrs ->> g.k = g.v, false))), true)
    )
    -- trend: a row with count n is n samples
    SELECT run, id, _th_bucket(t, g, last_lo, grid_end) AS c, t, ord, CASE WHEN trend AND NOT p THEN v END AS v,
           CASE WHEN p AND trend THEN v END AS pv,
           CASE WHEN sums THEN CASE WHEN trend THEN v::DECIMAL(38,9) WHEN counter THEN count::DECIMAL(38,9) END
           END AS d,
           CASE WHEN rate THEN CASE WHEN outcome <> 'ok' THEN count ELSE 0 END END::BIGINT AS trues,
           CASE WHEN NOT trend THEN count WHEN NOT p THEN 1 END::BIGINT AS total, val
    FROM rq
    WHERE CASE WHEN trend THEN v IS NOT NULL AND count = 1 WHEN rate THEN outcome IS NOT NULL ELSE counter END
    UNION ALL
    SELECT run, id, _th_bucket(t, g, last_lo, grid_end), t, ord, CASE WHEN NOT p THEN v END, CASE WHEN p THEN v END,
           CASE WHEN sums THEN v::DECIMAL(38,9) END, NULL, CASE WHEN NOT p THEN 1 END, val
    FROM (SELECT *, unnest(range(count)) FROM rq WHERE trend AND v IS NOT NULL AND count > 1)
    UNION ALL
    SELECT run, id, _th_bucket(t, g, last_lo, grid_end), t, ord, CASE WHEN NOT p THEN v END, CASE WHEN p THEN v END,
           CASE WHEN sums AND (trend OR counter) THEN v::DECIMAL(38,9) END,
           CASE WHEN rate THEN (v <> 0)::BIGINT END, CASE WHEN NOT p THEN 1 END, val
    FROM pt;

-- Per run, spec, bucket t (its end) and value v: the samples' sums, counts
-- and extremes (vmin and vmax whatever the spec's agg; NULL for rates and
-- counters of request rows), which _threshold_evals adds up per bucket and
-- over each (lo, t]. v is the sample's value for a percentile (p, med),
-- NULL for every other spec (one row per bucket): a percentile's verdict is
-- read off its samples counted per distinct value and per bucket, and so is
-- the value thresholds and threshold_windows print for the verdict's window
-- of whole buckets, from the same rows (one pass over the samples for both;
-- a second pass for the printed percentile was a fifth of thresholds' work
-- at 1 M rows, issue 41). An engine computes these rows over a dataset
-- (analyze/engine_thresholds.go), a percentile's per cell of its value
-- (the same counts and nearest values per bucket, so the same verdicts)
-- and, in the printed evaluation's window, per cell of its value and of
-- the two values k6 interpolates (the same printed percentile).
CREATE OR REPLACE MACRO _th_bucket_values(exp, specs, every_ms, window_ms, sliding, duration_ms) AS TABLE
    SELECT run, id, c AS t, pv AS v, count(*) AS k, coalesce(sum(total), count(*)) AS n, sum(trues) AS trues,
           sum(d) AS dsum, coalesce(min(v), pv) AS vmin, coalesce(max(v), pv) AS vmax,
           max(CASE WHEN val AND v IS NOT NULL THEN {t: t, ord: ord, v: v} END) FILTER (WHERE val) AS last
    FROM _th_samples(exp, specs, every_ms, window_ms, sliding, duration_ms)
    GROUP BY run, id, c, pv;

-- Per run and bucket t: the requests not ok that end in it. The start comes
-- with the grid: a join with _th_runs for it alone was a second pass over
-- every request for the runs' starts, as DuckDB shares only a _th_runs
-- whose columns are all read (issue 41).
CREATE OR REPLACE MACRO _th_failed_buckets(exp, every_ms, window_ms, sliding, duration_ms) AS TABLE
    SELECT q.run, _th_bucket(q.end_ns - g.start_ns, g.g, g.last_lo, g.end_ns) AS t, sum(q.count)::BIGINT AS n
    FROM _th_requests(exp) q JOIN _th_grid(exp, every_ms, window_ms, sliding, duration_ms) g USING (run)
    WHERE q.outcome <> 'ok'
    GROUP BY ALL;

CREATE OR REPLACE MACRO _threshold_evals(exp, specs, every_ms := 2000, window_ms := NULL, sliding := false,
                                         duration_ms := NULL) AS TABLE
    WITH mo AS (SELECT * FROM _th_moments(exp, specs, every_ms, window_ms, sliding, duration_ms)),
    fine AS MATERIALIZED (SELECT * FROM _th_bucket_values(exp, specs, every_ms, window_ms, sliding, duration_ms)),
    -- per bucket; a percentile's counts below and up to its value and the
    -- nearest values on each side from its values' rows
    bk AS (
        SELECT f.run, f.id, f.t, sum(f.k) AS k, sum(f.n) AS n, sum(f.trues) AS trues, sum(f.dsum) AS dsum,
               min(f.vmin) AS vmin, max(f.vmax) AS vmax, max(f.last) AS last,
               sum(f.k) FILTER (WHERE f.v < s.vd) AS c_lt, sum(f.k) FILTER (WHERE f.v <= s.vd) AS c_le,
               max(f.v) FILTER (WHERE f.v < s.vd) AS a, max(f.v) FILTER (WHERE f.v <= s.vd) AS b,
               min(f.v) FILTER (WHERE f.v >= s.vd) AS c, min(f.v) FILTER (WHERE f.v > s.vd) AS e
        FROM fine f JOIN _th_specs(specs) s ON s.id = f.id
        GROUP BY f.run, f.id, f.t
    ),
    rows AS (
        SELECT run, id, t, k, n, trues, dsum, vmin, vmax, last, c_lt, c_le, a, b, c, e,
               NULL::BOOLEAN AS final, NULL::BIGINT AS lo, NULL::BIGINT AS covered
        FROM bk
        UNION ALL
        SELECT run, id, t, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
               final, lo, covered
        FROM mo
    ),
    agg AS (
        SELECT run, id, t, final, lo, covered,
               coalesce(sum(k) OVER w, 0)::BIGINT AS k, coalesce(sum(n) OVER w, 0)::BIGINT AS n,
               coalesce(sum(trues) OVER w, 0)::BIGINT AS trues, coalesce(sum(dsum) OVER w, 0)::DECIMAL(38,9) AS dsum,
               min(vmin) OVER w AS vmin, max(vmax) OVER w AS vmax, max(last) OVER w AS last,
               coalesce(sum(c_lt) OVER w, 0)::BIGINT AS c_lt, coalesce(sum(c_le) OVER w, 0)::BIGINT AS c_le,
               max(a) OVER w AS a, max(b) OVER w AS b, min(c) OVER w AS c, min(e) OVER w AS e
        FROM rows
        WINDOW w AS (PARTITION BY run, id ORDER BY t
                     RANGE BETWEEN CASE WHEN final IS NULL THEN 0 ELSE t - lo - 1 END PRECEDING AND CURRENT ROW)
        QUALIFY final IS NOT NULL
    ),
    val AS (
        SELECT a.*, s.* EXCLUDE (id), s.q * (greatest(a.n, 1)::DOUBLE - 1.0::DOUBLE) AS rn,
               CASE s.agg WHEN 'avg' THEN (a.dsum / greatest(a.n, 1))::DOUBLE
                   WHEN 'min' THEN a.vmin WHEN 'max' THEN a.vmax
                   WHEN 'count' THEN a.dsum::DOUBLE
                   WHEN 'value' THEN a.last.v
                   WHEN 'rate' THEN CASE WHEN s.kind = 'rate' THEN a.trues / greatest(a.n, 1)
                                         WHEN a.covered > 0 THEN a.dsum::DOUBLE / (a.covered / 1e9) END
               END AS x
        FROM agg a JOIN _th_specs(specs) s ON s.id = a.id
    ),
    dec AS MATERIALIZED (
        SELECT *,
               CASE WHEN agg = 'avg' THEN _th_cmp(dsum, op, vx * n)
                    WHEN agg = 'rate' AND kind = 'rate' THEN _th_cmp(trues, op, vx * n)
                    WHEN agg = 'rate' THEN CASE WHEN covered > 0 THEN _th_cmp(dsum * 1000000000, op, vx * covered) ELSE true END
                    WHEN agg = 'count' THEN _th_cmp(dsum, op, vx)
                    WHEN agg IN ('p', 'med') THEN _th_p_pass(op, vd, floor(rn)::BIGINT, ceil(rn)::BIGINT, rn - floor(rn),
                                                             c_lt, c_le, a, b, c, e)
                    ELSE _th_cmp(x, op, vd)
               END AS verdict
        FROM val
    ),
    -- requests not ok by each moment: a running sum over the failures'
    -- buckets with the moments sorted in (a failure at a moment counts)
    -- the evaluation whose window's percentile is printed (printed): for
    -- k6's cumulative evaluation the run's abort, else its end; for windows
    -- each threshold's first failing one
    pr AS (
        SELECT *, CASE WHEN window_ms IS NULL THEN CASE WHEN stop_t IS NULL THEN final ELSE t = stop_t AND NOT final END
                       ELSE coalesce(t = first_t, false) END AS printed
        FROM (SELECT *,
                     min(t) FILTER (WHERE k > 0 AND NOT verdict AND NOT final AND abort AND (delay_ns IS NULL OR delay_ns < t))
                         OVER (PARTITION BY run) AS stop_t,
                     min(t) FILTER (WHERE k > 0 AND NOT verdict) OVER (PARTITION BY run, id) AS first_t
              FROM dec)
    ),
    fb AS (SELECT * FROM _th_failed_buckets(exp, every_ms, window_ms, sliding, duration_ms)),
    failed AS (
        SELECT run, t, failed FROM (
            SELECT run, t, m, sum(n) OVER (PARTITION BY run ORDER BY t) AS failed
            FROM (SELECT run, t, n, false AS m FROM fb
                  UNION ALL
                  SELECT DISTINCT run, t, 0, true FROM pr)
        ) WHERE m
    )
    SELECT v.run, v.id, v.t AS t_ns, v.t / 1e6 AS at_ms, v.lo, greatest(v.lo, 0) / 1e6 AS from_ms, v.final,
           v.n AS samples,
           CASE WHEN v.k > 0 THEN v.x END AS value,
           CASE WHEN v.k > 0 THEN v.verdict END AS pass,
           CASE WHEN v.k > 0 THEN v.x WHEN v.agg = 'rate' THEN CASE WHEN v.kind <> 'rate' AND v.covered > 0 THEN 0 END
                ELSE 0 END AS value_end,
           CASE WHEN v.k > 0 THEN v.verdict
                WHEN v.agg = 'rate' THEN v.kind = 'rate' OR v.covered <= 0 OR _th_cmp(0, v.op, v.vx)
                ELSE _th_cmp(0, v.op, v.vx) END AS pass_end,
           coalesce(f.failed, 0)::BIGINT AS failed, v.printed, NULL::DOUBLE AS pv, NULL::BIGINT AS pw
    FROM pr v LEFT JOIN failed f ON f.run = v.run AND f.t = v.t
    UNION ALL  -- a percentile's samples: pw of value pv in the bucket ending at t_ns (final NULL)
    SELECT run, id, t, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, v, k
    FROM fine WHERE v IS NOT NULL;

CREATE OR REPLACE MACRO thresholds(exp, specs, every_ms := 2000, duration_ms := NULL) AS TABLE
    WITH x AS MATERIALIZED (SELECT * FROM _threshold_evals(exp, specs, every_ms := every_ms, duration_ms := duration_ms)),
    e AS MATERIALIZED (  -- ok: the verdict of each evaluation; the end reads empty sinks as 0
        SELECT e.* EXCLUDE (pv, pw), s.abort, s.delay_ns, s.agg, s.q, CASE WHEN e.final THEN e.pass_end ELSE e.pass END AS ok
        FROM x e JOIN _th_specs(specs) s ON s.id = e.id
        WHERE e.final IS NOT NULL
    ),
    per AS (
        SELECT run, id,
               min(t_ns) FILTER (WHERE NOT ok) AS first_fail,
               min(t_ns) FILTER (WHERE NOT ok AND NOT final AND abort AND (delay_ns IS NULL OR delay_ns < t_ns)) AS abort_at,
               max(failed) AS failed_total
        FROM e GROUP BY run, id
    ),
    -- the evaluation k6 prints: at the run's abort, else at the end
    verdict AS MATERIALIZED (SELECT * FROM e WHERE printed),
    -- the percentile printed: the window's values counted per distinct value
    -- (its buckets' counts), the two ranks read off the running counts (no
    -- list of every sample)
    pc AS (
        SELECT v.run, v.id, v.t_ns, any_value(v.q) AS q, s.pv AS v, sum(s.pw) AS m
        FROM verdict v
        JOIN x s ON s.run = v.run AND s.id = v.id AND s.final IS NULL AND s.t_ns > v.lo AND s.t_ns <= v.t_ns
        WHERE v.agg IN ('p', 'med')
        GROUP BY v.run, v.id, v.t_ns, s.pv
    ),
    pct AS (
        SELECT run, id, t_ns, _th_k6_p(min(v) FILTER (WHERE below > _th_k6_rank(n, q, false)),
                                       min(v) FILTER (WHERE below > _th_k6_rank(n, q, true)),
                                       any_value(n), any_value(q)) AS value
        FROM (SELECT *, sum(m) OVER (PARTITION BY run, id, t_ns ORDER BY v ROWS UNBOUNDED PRECEDING) AS below,
                     sum(m) OVER (PARTITION BY run, id, t_ns) AS n
              FROM pc)
        GROUP BY run, id, t_ns
    ),
    fail AS (SELECT DISTINCT run, t_ns, failed FROM e)
    SELECT p.run, s.name AS metric, s.source AS threshold, s.abort AS abort_on_fail,
           v.samples, CASE WHEN v.agg IN ('p', 'med') THEN coalesce(pct.value, 0) ELSE v.value_end END AS value,
           v.pass_end AS pass, p.first_fail / 1e6 AS first_fail_ms, p.abort_at / 1e6 AS abort_ms,
           f.failed AS failed_until, p.failed_total
    FROM per p
    JOIN _th_specs(specs) s ON s.id = p.id
    JOIN verdict v ON v.run = p.run AND v.id = p.id
    LEFT JOIN pct ON pct.run = v.run AND pct.id = v.id
    LEFT JOIN fail f ON f.run = p.run AND f.t_ns = CASE WHEN s.abort THEN p.abort_at ELSE p.first_fail END
    ORDER BY p.run, p.id;

CREATE OR REPLACE MACRO threshold_windows(exp, specs, window_ms, sliding := false, every_ms := 2000,
                                          duration_ms := NULL) AS TABLE
    WITH x AS MATERIALIZED (
        SELECT * FROM _threshold_evals(exp, specs, every_ms := every_ms, window_ms := window_ms,
                                       sliding := sliding, duration_ms := duration_ms)
    ),
    e AS MATERIALIZED (SELECT * EXCLUDE (pv, pw) FROM x WHERE final IS NOT NULL),
    per AS MATERIALIZED (
        SELECT run, id, count(pass) AS windows, count(*) FILTER (WHERE NOT pass) AS failed_windows,
               min({t: t_ns, lo: lo, value: value, failed: failed}) FILTER (WHERE NOT pass) AS first,
               max(failed) AS failed_total
        FROM e GROUP BY run, id
    ),
    pc AS (  -- the percentile printed (the first failing window's), as thresholds computes it
        SELECT p.run, p.id, any_value(sp.q) AS q, s.pv AS v, sum(s.pw) AS m
        FROM e p
        JOIN _th_specs(specs) sp ON sp.id = p.id
        JOIN x s ON s.run = p.run AND s.id = p.id AND s.final IS NULL AND s.t_ns > p.lo AND s.t_ns <= p.t_ns
        WHERE p.printed AND sp.agg IN ('p', 'med')
        GROUP BY p.run, p.id, s.pv
    ),
    pct AS (
        SELECT run, id, _th_k6_p(min(v) FILTER (WHERE below > _th_k6_rank(n, q, false)),
                                 min(v) FILTER (WHERE below > _th_k6_rank(n, q, true)),
                                 any_value(n), any_value(q)) AS value
        FROM (SELECT *, sum(m) OVER (PARTITION BY run, id ORDER BY v ROWS UNBOUNDED PRECEDING) AS below,
                     sum(m) OVER (PARTITION BY run, id) AS n
              FROM pc)
        GROUP BY run, id
    )
    SELECT p.run, s.name AS metric, s.source AS threshold, p.windows, p.failed_windows,
           p.first.t / 1e6 AS first_fail_ms, CASE WHEN p.first.lo IS NOT NULL THEN greatest(p.first.lo, 0) / 1e6 END AS first_fail_from_ms,
           CASE WHEN s.agg IN ('p', 'med') THEN pct.value ELSE p.first.value END AS value,
           p.first.failed AS failed_until, p.failed_total
    FROM per p JOIN _th_specs(specs) s ON s.id = p.id
    LEFT JOIN pct ON pct.run = p.run AND pct.id = p.id
    ORDER BY p.run, p.id;
