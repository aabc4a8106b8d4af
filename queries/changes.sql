-- changes: each run's series per interval, for finding when the service changed.
--
-- Question: per interval of a run, how many requests were sent, how many of
-- them failed, and how slow were they (p50, p95, p99)? These are the series
-- in which `rewind analyze changes` finds change points (PELT, in Go: the
-- series has thousands of points, the log millions of rows). Interval k
-- holds the rows with floor(t_ms / interval_ms) = k, aligned at t_ms = 0 as
-- peaks' buckets are; one row per interval that holds a row, so an interval
-- without requests is missing (its throughput is 0, it has no error rate
-- or latency). A row with a count column stands for that many requests in
-- requests, judged and errors; a latency quantile is taken over the rows
-- (one value per row, whatever its count), nearest rank (quantile_disc with
-- a DECIMAL fraction, exact). A row whose outcome is NULL is not judged: it
-- counts in requests, not in the error rate. A latency quantile changes when
-- the share of requests slower than the run's own quantile changes, so the
-- series also counts those (over_p50, over_p95, over_p99): the change points
-- of a latency quantile are found in that share, a binomial series, exact
-- in integers and free of the latency's unit and rounding.
-- Parameters:
--   exp          VARCHAR  experiment
--   interval_ms  BIGINT   interval length in whole ms, positive
--   grp          ANY      changes_series_by only, its second: the group, an expression over the
--                         columns of requests (docs/by.md)
-- Columns:
--   grp          ANY      changes_series_by only, first: the group's value
--   run          VARCHAR  run
--   k            BIGINT   interval number: it holds [k * interval_ms, (k + 1) * interval_ms) of t_ms
--   requests     BIGINT   requests sent in the interval
--   judged       BIGINT   requests with an outcome
--   errors       BIGINT   requests whose outcome is not ok
--   timed        BIGINT   requests with a latency
--   over_p50     BIGINT   requests slower than the run's median (p50 over all its rows with a latency)
--   over_p95     BIGINT   requests slower than the run's p95
--   over_p99     BIGINT   requests slower than the run's p99
--   p50_ms       DOUBLE   ms, median latency of the interval's rows with a latency; NULL without one
--   p95_ms       DOUBLE   ms, 95th percentile latency
--   p99_ms       DOUBLE   ms, 99th percentile latency
-- Units: changes_series_by: grp=- run=- k=- requests=requests judged=requests errors=requests
-- Units: changes_series_by: timed=requests over_p50=requests over_p95=requests over_p99=requests
-- Units: changes_series_by: p50_ms=ms p95_ms=ms p99_ms=ms
-- Units: changes_series: run=- k=- requests=requests judged=requests errors=requests
-- Units: changes_series: timed=requests over_p50=requests over_p95=requests over_p99=requests
-- Units: changes_series: p50_ms=ms p95_ms=ms p99_ms=ms
-- How: the rows are counted once per run, group, interval and distinct
-- latency (a log's latencies repeat: whole ms, or a few hundred values), and
-- every quantile is read from those counts, the run's and each interval's:
-- the nearest rank ceil(q n) of n rows, in integers, which is what
-- quantile_disc gives with a DECIMAL fraction (TestChangesSeriesQuantiles).
CREATE OR REPLACE MACRO _changes_counts(exp, grp, interval_ms) AS TABLE
    SELECT run, {'v': grp} AS gk,
           floor(t_ms / CASE WHEN interval_ms > 0 THEN interval_ms
                             ELSE error('changes: interval_ms must be positive, got ' || interval_ms) END)::BIGINT AS k,
           latency_ms AS lat, count(*) AS m, sum(count)::BIGINT AS n,
           (sum(count) FILTER (WHERE outcome IS NOT NULL))::BIGINT AS judged,
           (sum(count) FILTER (WHERE outcome <> 'ok'))::BIGINT AS errors
    FROM requests
    WHERE experiment = exp AND t_ms IS NOT NULL
    GROUP BY ALL;

CREATE OR REPLACE MACRO changes_series_by(exp, grp, interval_ms) AS TABLE
    WITH c AS MATERIALIZED (SELECT * FROM _changes_counts(exp, grp, interval_ms)),
    rl AS (SELECT run, gk, lat, sum(m) AS m FROM c WHERE lat IS NOT NULL GROUP BY ALL),
    rc AS (
        SELECT run, gk, lat, sum(m) OVER (PARTITION BY run, gk ORDER BY lat ROWS UNBOUNDED PRECEDING) AS below,
               sum(m) OVER (PARTITION BY run, gk) AS total
        FROM rl
    ),
    th AS (
        SELECT run, gk, min(lat) FILTER (WHERE below * 1000 >= 500 * total) AS t50,
               min(lat) FILTER (WHERE below * 1000 >= 950 * total) AS t95,
               min(lat) FILTER (WHERE below * 1000 >= 990 * total) AS t99
        FROM rc GROUP BY ALL
    ),
    ic AS (
        SELECT run, gk, k, lat, sum(m) OVER (PARTITION BY run, gk, k ORDER BY lat ROWS UNBOUNDED PRECEDING) AS below,
               sum(m) OVER (PARTITION BY run, gk, k) AS total
        FROM c WHERE lat IS NOT NULL
    ),
    iq AS (
        SELECT run, gk, k, min(lat) FILTER (WHERE below * 1000 >= 500 * total) AS p50_ms,
               min(lat) FILTER (WHERE below * 1000 >= 950 * total) AS p95_ms,
               min(lat) FILTER (WHERE below * 1000 >= 990 * total) AS p99_ms
        FROM ic GROUP BY ALL
    ),
    tot AS (
        SELECT c.run, c.gk, c.k, sum(c.n)::BIGINT AS requests, coalesce(sum(c.judged), 0)::BIGINT AS judged,
               coalesce(sum(c.errors), 0)::BIGINT AS errors,
               coalesce(sum(c.n) FILTER (WHERE c.lat IS NOT NULL), 0)::BIGINT AS timed,
               coalesce(sum(c.n) FILTER (WHERE c.lat > th.t50), 0)::BIGINT AS over_p50,
               coalesce(sum(c.n) FILTER (WHERE c.lat > th.t95), 0)::BIGINT AS over_p95,
               coalesce(sum(c.n) FILTER (WHERE c.lat > th.t99), 0)::BIGINT AS over_p99
        FROM c LEFT JOIN th ON th.run = c.run AND th.gk IS NOT DISTINCT FROM c.gk
        GROUP BY c.run, c.gk, c.k
    )
    SELECT t.gk.v AS grp, t.run, t.k, t.requests, t.judged, t.errors, t.timed, t.over_p50, t.over_p95, t.over_p99,
           q.p50_ms, q.p95_ms, q.p99_ms
    FROM tot t LEFT JOIN iq q ON q.run = t.run AND q.gk IS NOT DISTINCT FROM t.gk AND q.k = t.k
    ORDER BY t.gk, t.run, t.k;

CREATE OR REPLACE MACRO changes_series(exp, interval_ms) AS TABLE
    SELECT * EXCLUDE (grp) FROM changes_series_by(exp, true, interval_ms)
    ORDER BY run, k;
