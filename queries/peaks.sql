-- peaks: the busiest moment of each run, at several resolutions.
--
-- Question: what is the most requests any bucket of a given length held,
-- and when? A 1 s bucket can hide a burst that 100 ms buckets show, so the
-- same log is read at each resolution side by side. Buckets are aligned at
-- t_ms = 0: bucket k holds [k*res, (k+1)*res). Every request row with a
-- t_ms counts, whatever its role or outcome (a retry is load too); rows
-- without t_ms are left out. A row with a count column stands for that many
-- requests, so a pre-binned series (run, t_ms, count) gives the peaks of the
-- raw rows it was binned from, at any multiple of its bin width.
-- With sliding, each window is half-open, [t, t + res), and starts at a
-- row's t_ms: the fullest window of that length always starts at some row,
-- so no other start can hold more.
-- Parameters:
--   exp             VARCHAR   experiment
--   resolutions_ms  BIGINT[]  bucket lengths in whole ms, e.g. [100, 1000]
--   sliding         BOOLEAN   also compute the sliding-window peak (default false)
-- Columns:
--   run             VARCHAR  run
--   resolution_ms   BIGINT   ms, bucket length
--   peak            BIGINT   requests in the fullest aligned bucket
--   peak_at_ms      BIGINT   ms, start of the first bucket holding peak
--   total           BIGINT   requests of the run with a t_ms
--   sliding_peak    BIGINT   requests in the fullest window [t, t + res); NULL without sliding
--   sliding_at_ms   DOUBLE   ms, start t of the first such window; NULL without sliding
CREATE OR REPLACE MACRO _peak_resolutions(resolutions_ms) AS TABLE
    SELECT DISTINCT CASE WHEN r > 0 THEN r ELSE error('peaks: resolutions must be positive ms, got ' || r) END AS res
    FROM (SELECT unnest(resolutions_ms)::BIGINT AS r);

-- Requests per distinct t_ms of each run: the points both kinds of peak add up.
CREATE OR REPLACE MACRO _peak_points(exp) AS TABLE
    SELECT run, t_ms, sum(count)::BIGINT AS n
    FROM requests
    WHERE experiment = exp AND t_ms IS NOT NULL
    GROUP BY ALL;

CREATE OR REPLACE MACRO _aligned_peaks(exp, resolutions_ms) AS TABLE
    WITH buckets AS (
        SELECT p.run, r.res, floor(p.t_ms / r.res)::BIGINT AS k, sum(p.n)::BIGINT AS n
        FROM _peak_points(exp) p, _peak_resolutions(resolutions_ms) r
        GROUP BY ALL
    )
    SELECT run, res, n AS peak, k * res AS peak_at_ms, sum(n) OVER (PARTITION BY run, res)::BIGINT AS total
    FROM buckets
    QUALIFY row_number() OVER (PARTITION BY run, res ORDER BY n DESC, k) = 1;

-- A RANGE frame is closed, [t, t + res]; the requests at exactly t + res are
-- subtracted to make it half-open.
CREATE OR REPLACE MACRO _sliding_peaks(exp, resolutions_ms) AS TABLE
    WITH pts AS (SELECT * FROM _peak_points(exp)),
    closed AS (
        SELECT p.run, r.res, p.t_ms,
               sum(p.n) OVER (PARTITION BY p.run, r.res ORDER BY p.t_ms
                              RANGE BETWEEN CURRENT ROW AND r.res FOLLOWING) AS n
        FROM pts p, _peak_resolutions(resolutions_ms) r
    )
    SELECT c.run, c.res, (c.n - coalesce(e.n, 0))::BIGINT AS n, c.t_ms
    FROM closed c LEFT JOIN pts e ON e.run = c.run AND e.t_ms = c.t_ms + c.res
    QUALIFY row_number() OVER (PARTITION BY c.run, c.res ORDER BY c.n - coalesce(e.n, 0) DESC, c.t_ms) = 1;

CREATE OR REPLACE MACRO peaks(exp, resolutions_ms, sliding := false) AS TABLE
    SELECT a.run, a.res AS resolution_ms, a.peak, a.peak_at_ms, a.total,
           s.n AS sliding_peak, s.t_ms AS sliding_at_ms
    FROM _aligned_peaks(exp, resolutions_ms) a
    LEFT JOIN (SELECT * FROM _sliding_peaks(exp, resolutions_ms) WHERE sliding) s
        ON s.run = a.run AND s.res = a.res
    ORDER BY a.run, a.res;
