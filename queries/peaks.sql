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

-- The window [t, t + res) from a row at t holds C(t + res) - C(t), where
-- C(x) is what the rows with t_ms < x hold; the fullest window starts at
-- some row. Most rows are ruled out by a bound first. Time is cut into
-- buckets of g ms (the smallest resolution over m, m about 4 sqrt(rows per
-- window) from the table's statistics: it only tunes the bound), bucket k
-- holding the rows with floor(t_ms / g) = k. That floor is monotone in
-- t_ms, so a window from a row of bucket k holds only rows of buckets k to
-- k + ceil(res / g) + 2 (its upper bound U), and the window from the
-- bucket's first row holds all of buckets k to k + floor(res / g) - 2 (a
-- lower bound L; one bucket more than exact arithmetic needs on each side,
-- for the rounding of t + res and of the division). The peak is at least
-- the largest L, so only the rows of buckets whose U reaches it are counted
-- exactly: C(x) is the sum of the buckets before floor(x / g) plus a
-- running sum over the rows of that bucket, with the same floor, so the
-- count is exact whatever the rounding (a window ending in a bucket not
-- read is an error, never a wrong count). Rows that share a t_ms have the
-- same count. sliding is applied to the rows read, so that sliding :=
-- false (a parameter the optimizer cannot see) reads none.
CREATE OR REPLACE MACRO _sliding_peaks(exp, resolutions_ms, sliding) AS TABLE
    WITH rs AS (SELECT res FROM _peak_resolutions(resolutions_ms) WHERE sliding),
    -- g: the smallest resolution over m, m about 4 sqrt(rows per window)
    -- (at least 4, at most 4096, g far above the rounding of t_ms, and no
    -- more than 2^22 buckets over the table's span: pre is dense)
    tune AS (
        SELECT r0 / greatest(4, least(4096, round(4 * sqrt(greatest(1, s.n * r0 / s.span / s.runs))),
                                   floor(r0 * 4398046511104 / s.mag), floor(r0 * 4194304 / s.span))) AS g
        FROM (SELECT min(res) AS r0 FROM rs),
             (SELECT count(*) AS n, greatest(max(t_ms) - min(t_ms), 1) AS span,
                     greatest(abs(max(t_ms)), abs(min(t_ms)), 1) AS mag,
                     greatest((SELECT count(*) FROM runs), 1) AS runs
              FROM requests) s
        WHERE r0 IS NOT NULL
    ),
    -- per resolution, the bucket spans of the bounds
    rm AS (SELECT res, ceil(res / g)::BIGINT + 2 AS up, floor(res / g)::BIGINT - 2 AS dn FROM rs, tune),
    rows AS (
        SELECT q.run, q.t_ms, q.count, floor(q.t_ms / t.g)::BIGINT AS k, t.g
        FROM requests q, tune t
        WHERE q.experiment = exp AND q.t_ms IS NOT NULL
    ),
    buckets AS (SELECT run, k, sum(count)::BIGINT AS n FROM rows GROUP BY ALL),
    -- every bucket from a run's first to its last with its prefix sum,
    -- summed in chunks of 2^12 buckets (which run in parallel) and the
    -- chunks' offsets
    dense AS (
        SELECT d.run, d.k, coalesce(b.n, 0) AS n
        FROM (SELECT run, unnest(range(min(k), max(k) + 1)) AS k FROM buckets GROUP BY run) d
        LEFT JOIN buckets b USING (run, k)
    ),
    chunked AS (
        SELECT run, k, n, k // 4096 AS c, sum(n) OVER (PARTITION BY run, k // 4096 ORDER BY k) AS part FROM dense
    ),
    offs AS (
        SELECT run, c, sum(t) OVER (PARTITION BY run ORDER BY c) - t AS off
        FROM (SELECT run, c, sum(n) AS t FROM chunked GROUP BY run, c)
    ),
    pre AS MATERIALIZED (
        SELECT ch.run, ch.k, ch.n, ch.part + o.off AS upto FROM chunked ch JOIN offs o USING (run, c)
    ),
    total AS (SELECT run, max(upto) AS total, max(k) AS kmax FROM pre GROUP BY run),
    -- U and L of every nonempty bucket at every resolution: what buckets k
    -- to k + up and k to k + dn hold
    bounds AS (
        SELECT p.run, p.res, p.up, p.k,
               coalesce(u.upto, p.total) - (p.upto - p.n) AS u, coalesce(l.upto, p.total) - (p.upto - p.n) AS l
        FROM (SELECT * FROM pre JOIN total USING (run), rm WHERE n > 0) p
        LEFT JOIN pre u ON u.run = p.run AND u.k = p.k + p.up
        LEFT JOIN pre l ON l.run = p.run AND l.k = p.k + p.dn
    ),
    -- the buckets a fullest window may start in, and those its end may
    -- fall in: k + floor(res / g) - 1 to k + ceil(res / g) + 1, within
    -- k + up - 4 to k + up (checked below)
    cand AS MATERIALIZED (
        SELECT b.run, b.res, b.up, b.k FROM bounds b
        JOIN (SELECT run, res, max(l) AS best FROM bounds GROUP BY run, res) m USING (run, res)
        WHERE b.u >= m.best
    ),
    need AS (
        SELECT run, res, k FROM cand
        UNION
        SELECT run, res, k + unnest(range(up - 4, up + 1)) FROM cand
    ),
    pts AS MATERIALIZED (SELECT run, k, t_ms, count, g FROM rows SEMI JOIN (SELECT DISTINCT run, k FROM need) USING (run, k)),
    starts AS (
        SELECT DISTINCT p.run, c.res, p.t_ms, p.k, floor((p.t_ms + c.res) / p.g)::BIGINT AS kb
        FROM pts p JOIN cand c USING (run, k)
    ),
    -- C at a start t (in its bucket k) and at its end t + res (bucket kb)
    probes AS (
        SELECT run, res, k AS b, t_ms AS pos, t_ms AS st, 0 AS side FROM starts
        UNION ALL
        SELECT s.run, s.res,
               CASE WHEN n.k IS NOT NULL OR s.kb > t.kmax THEN s.kb
                    ELSE error('peaks: a sliding window ends past the buckets read (t_ms ' || s.t_ms || ')') END,
               s.t_ms + s.res, s.t_ms, 1
        FROM starts s JOIN total t USING (run) LEFT JOIN need n ON n.run = s.run AND n.res = s.res AND n.k = s.kb
    ),
    within AS (
        SELECT run, res, b, st, side,
               sum(count) OVER (PARTITION BY run, res, b ORDER BY pos, kind ROWS UNBOUNDED PRECEDING) AS lt
        FROM (SELECT p.run, r.res, p.k AS b, p.t_ms AS pos, 1 AS kind, p.count, NULL::DOUBLE AS st, NULL::INTEGER AS side
              FROM pts p JOIN (SELECT DISTINCT run, res, k FROM need) r USING (run, k)
              UNION ALL
              SELECT run, res, b, pos, 0, 0, st, side FROM probes)
        QUALIFY kind = 0
    ),
    c AS (
        SELECT w.run, w.res, w.st, w.side,
               w.lt + coalesce(d.upto - d.n, t.total) AS c
        FROM within w JOIN total t USING (run) LEFT JOIN pre d ON d.run = w.run AND d.k = w.b
    ),
    counted AS (
        SELECT run, res, st AS t_ms, (max(c) FILTER (WHERE side = 1) - max(c) FILTER (WHERE side = 0)) AS n
        FROM c GROUP BY run, res, st
    )
    SELECT run, res, max(n)::BIGINT AS n, min({'neg_n': -n, 't': t_ms}).t AS t_ms
    FROM counted
    GROUP BY run, res;

CREATE OR REPLACE MACRO peaks(exp, resolutions_ms, sliding := false) AS TABLE
    SELECT a.run, a.res AS resolution_ms, a.peak, a.peak_at_ms, a.total,
           s.n AS sliding_peak, s.t_ms AS sliding_at_ms
    FROM _aligned_peaks(exp, resolutions_ms) a
    LEFT JOIN _sliding_peaks(exp, resolutions_ms, sliding) s
        ON s.run = a.run AND s.res = a.res
    ORDER BY a.run, a.res;
