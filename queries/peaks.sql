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

-- Aligned buckets are summed straight from the rows (grouping by distinct
-- t_ms first would make one group per row of a raw log).
CREATE OR REPLACE MACRO _aligned_peaks(exp, resolutions_ms) AS TABLE
    WITH buckets AS (
        SELECT q.run, r.res, floor(q.t_ms / r.res)::BIGINT AS k, sum(q.count)::BIGINT AS n
        FROM requests q, _peak_resolutions(resolutions_ms) r
        WHERE q.experiment = exp AND q.t_ms IS NOT NULL
        GROUP BY ALL
    )
    SELECT run, res, n AS peak, k * res AS peak_at_ms, sum(n) OVER (PARTITION BY run, res)::BIGINT AS total
    FROM buckets
    QUALIFY row_number() OVER (PARTITION BY run, res ORDER BY n DESC, k) = 1;

-- The window [t, t + res) from a row at t holds upto(b) - before(t), where
-- before(t) is what comes before the row in t_ms order and upto(b) is what
-- the rows up to the last t_ms below b = t + res hold; an ASOF join finds
-- that t_ms, so the whole thing is a sort and a merge: O(n log n). Rows
-- that share a t_ms have the same upto (a RANGE frame counts peers); their
-- before differs, but the first of them has the true one and the others
-- count less, so the peak and its first start are the same. Runs are
-- numbered (rid) so that the sort and the join key on an integer, not on
-- text. sliding is applied to the rows read, so that sliding := false (a
-- parameter the optimizer cannot see) reads none.
CREATE OR REPLACE MACRO _sliding_peaks(exp, resolutions_ms, sliding) AS TABLE
    WITH ids AS (
        SELECT run, row_number() OVER (ORDER BY run) AS rid
        FROM (SELECT DISTINCT run FROM requests WHERE experiment = exp AND t_ms IS NOT NULL AND sliding)
    ),
    pts AS MATERIALIZED (
        SELECT i.rid, q.t_ms,
               sum(q.count) OVER (PARTITION BY i.rid ORDER BY q.t_ms) AS upto,
               sum(q.count) OVER (PARTITION BY i.rid ORDER BY q.t_ms ROWS UNBOUNDED PRECEDING) - q.count AS before
        FROM requests q JOIN ids i ON i.run = q.run
        WHERE q.experiment = exp AND q.t_ms IS NOT NULL AND sliding
    ),
    starts AS (
        SELECT p.rid, r.res, p.t_ms, p.t_ms + r.res AS bound, p.before
        FROM pts p, _peak_resolutions(resolutions_ms) r
    ),
    counted AS (
        SELECT s.rid, s.res, s.t_ms, coalesce(e.upto, s.before) - s.before AS n
        FROM starts s ASOF LEFT JOIN pts e ON e.rid = s.rid AND s.bound > e.t_ms
    ),
    -- the fullest window, and of those the first: min of (-n, t)
    best AS (
        SELECT rid, res, max(n)::BIGINT AS n, min({'neg_n': -n, 't': t_ms}).t AS t_ms
        FROM counted
        GROUP BY rid, res
    )
    SELECT i.run, b.res, b.n, b.t_ms
    FROM best b JOIN ids i ON i.rid = b.rid;

CREATE OR REPLACE MACRO peaks(exp, resolutions_ms, sliding := false) AS TABLE
    SELECT a.run, a.res AS resolution_ms, a.peak, a.peak_at_ms, a.total,
           s.n AS sliding_peak, s.t_ms AS sliding_at_ms
    FROM _aligned_peaks(exp, resolutions_ms) a
    LEFT JOIN _sliding_peaks(exp, resolutions_ms, sliding) s
        ON s.run = a.run AND s.res = a.res
    ORDER BY a.run, a.res;
