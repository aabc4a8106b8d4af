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
CREATE OR REPLACE MACRO changes_series_by(exp, grp, interval_ms) AS TABLE
    WITH th AS MATERIALIZED (
        SELECT run, {'v': grp} AS gk, quantile_disc(latency_ms, [0.5, 0.95, 0.99]::DECIMAL(4, 3)[]) AS th
        FROM requests
        WHERE experiment = exp AND t_ms IS NOT NULL
        GROUP BY ALL
    ),
    q AS (
        SELECT r.run, {'v': grp} AS gk,
               floor(r.t_ms / CASE WHEN interval_ms > 0 THEN interval_ms
                                   ELSE error('changes: interval_ms must be positive, got ' || interval_ms) END)::BIGINT AS k,
               sum(r.count)::BIGINT AS requests,
               (sum(r.count) FILTER (WHERE r.outcome IS NOT NULL))::BIGINT AS judged,
               (sum(r.count) FILTER (WHERE r.outcome <> 'ok'))::BIGINT AS errors,
               (sum(r.count) FILTER (WHERE r.latency_ms IS NOT NULL))::BIGINT AS timed,
               (sum(r.count) FILTER (WHERE r.latency_ms > t.th[1]))::BIGINT AS over_p50,
               (sum(r.count) FILTER (WHERE r.latency_ms > t.th[2]))::BIGINT AS over_p95,
               (sum(r.count) FILTER (WHERE r.latency_ms > t.th[3]))::BIGINT AS over_p99,
               quantile_disc(r.latency_ms, [0.5, 0.95, 0.99]::DECIMAL(4, 3)[]) AS lat
        FROM requests r JOIN th t ON t.run = r.run AND t.gk = {'v': grp}
        WHERE r.experiment = exp AND r.t_ms IS NOT NULL
        GROUP BY ALL
    )
    SELECT gk.v AS grp, run, k, requests, coalesce(judged, 0) AS judged, coalesce(errors, 0) AS errors,
           coalesce(timed, 0) AS timed, coalesce(over_p50, 0) AS over_p50, coalesce(over_p95, 0) AS over_p95,
           coalesce(over_p99, 0) AS over_p99, lat[1] AS p50_ms, lat[2] AS p95_ms, lat[3] AS p99_ms
    FROM q
    ORDER BY gk, run, k;

CREATE OR REPLACE MACRO changes_series(exp, interval_ms) AS TABLE
    SELECT * EXCLUDE (grp) FROM changes_series_by(exp, true, interval_ms)
    ORDER BY run, k;
