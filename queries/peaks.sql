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
--   grp             ANY       peaks_by only, its second: the group, an expression over the
--                             columns of requests (docs/by.md)
-- Columns:
--   grp             ANY      peaks_by only, first: the group's value
--   run             VARCHAR  run
--   resolution_ms   BIGINT   ms, bucket length
--   peak            BIGINT   requests in the fullest aligned bucket
--   peak_at_ms      BIGINT   ms, start of the first bucket holding peak
--   total           BIGINT   requests of the run with a t_ms
--   sliding_peak    BIGINT   requests in the fullest window [t, t + res); NULL without sliding
--   sliding_at_ms   DOUBLE   ms, start t of the first such window; NULL without sliding
-- Units: peaks_by: grp=- run=- resolution_ms=ms peak=requests peak_at_ms=ms total=requests
-- Units: peaks_by: sliding_peak=requests sliding_at_ms=ms
-- Units: peaks: run=- resolution_ms=ms peak=requests peak_at_ms=ms total=requests
-- Units: peaks: sliding_peak=requests sliding_at_ms=ms
CREATE OR REPLACE MACRO _peak_resolutions(resolutions_ms) AS TABLE
    SELECT DISTINCT CASE WHEN r > 0 THEN r ELSE error('peaks: resolutions must be positive ms, got ' || r) END AS res
    FROM (SELECT unnest(resolutions_ms)::BIGINT AS r);

-- Aligned buckets are summed straight from the rows (grouping by distinct
-- t_ms first would make one group per row of a raw log), at the
-- resolutions not in done (those the sliding pass rolled up already).
CREATE OR REPLACE MACRO _aligned_peaks(exp, key, resolutions_ms, done) AS TABLE
    WITH rs AS (SELECT res FROM _peak_resolutions(resolutions_ms) WHERE NOT list_contains(done, res)),
    buckets AS (
        SELECT q.run, key AS gk, r.res, floor(q.t_ms / r.res)::BIGINT AS k, sum(q.count)::BIGINT AS n
        FROM requests q, rs r
        WHERE q.experiment = exp AND q.t_ms IS NOT NULL
        GROUP BY ALL
    )
    SELECT run, gk, res, n AS peak, k * res AS peak_at_ms, sum(n) OVER (PARTITION BY run, gk, res)::BIGINT AS total
    FROM buckets
    QUALIFY row_number() OVER (PARTITION BY run, gk, res ORDER BY n DESC, k) = 1;

-- The window [t, t + res) from a row at t holds C(t + res) - C(t), where
-- C(x) is what the rows with t_ms < x hold; the fullest window starts at
-- some row. Most rows are ruled out by a bound first. Time is cut into
-- buckets of g ms, a power of two (the smallest resolution over m, m about
-- sqrt(rows per window) from the table's statistics, rounded to a power of
-- two: it only tunes the bound), bucket k holding the rows with
-- floor(t_ms / g) = k. Dividing by a power of two is exact, so bucket k is
-- exactly [k g, (k + 1) g), and k g is a double. For a row at t in bucket
-- k, t + res < (k + 1) g + res <= (k + ceil(res / g) + 1) g, so the window
-- (whose end is t + res rounded, and rounding keeps that order) holds only
-- rows of buckets k to k + ceil(res / g): its upper bound U. The window
-- from the bucket's first row ends at or past (k + floor(res / g)) g, so it
-- holds all of buckets k to k + floor(res / g) - 1: a lower bound L (none
-- when res < g). The peak is at least the largest L, so only the rows of
-- buckets whose U reaches it are counted exactly: C(x) is the sum of the
-- buckets before floor(x / g) plus a running sum over the rows of that
-- bucket, with the same floor, and a window from bucket k ends in bucket
-- k + floor(res / g) or k + ceil(res / g) (a window ending in a bucket not
-- read is an error, never a wrong count). Rows that share a t_ms have the
-- same count. The rows are read twice, not kept (at 100 M rows they would
-- spill): the second read keeps the needed buckets' rows by a semi join
-- whose build side is the needed buckets, a list unnested so that the
-- optimizer does not take the table's side for the smaller one. sliding is
-- applied to the rows read, so that sliding := false (a parameter the
-- optimizer cannot see) reads none.
CREATE OR REPLACE MACRO _sliding_peaks(exp, key, resolutions_ms, sliding) AS TABLE
    WITH rs AS (SELECT res FROM _peak_resolutions(resolutions_ms) WHERE sliding),
    -- g: a power of two near the smallest resolution over m, m about
    -- sqrt(rows per window) (at least 4, at most 4096), and no smaller than
    -- needed for floor(t_ms / g) < 2^42, for at most 2^22 buckets over the
    -- table's span and for no more buckets per run than rows (pre is dense:
    -- a few rows over hours would make millions of empty buckets)
    tune AS (
        SELECT pow(2, greatest(round(log2(r0 / greatest(4, least(4096, sqrt(greatest(1, s.n * r0 / s.span / s.runs)))))),
                               ceil(log2(s.mag / 4398046511104)), ceil(log2(s.span / 4194304)),
                               ceil(log2(s.span * s.runs / s.n))))::DOUBLE AS g
        FROM (SELECT min(res) AS r0 FROM rs),
             (SELECT count(*) AS n, greatest(max(t_ms) - min(t_ms), 1) AS span,
                     greatest(abs(max(t_ms)), abs(min(t_ms)), 1) AS mag,
                     greatest((SELECT count(*) FROM runs), 1) AS runs
              FROM requests) s
        WHERE r0 IS NOT NULL
    ),
    -- per resolution, the bucket spans of the bounds: U is k to k + up, L k to k + dn
    rm AS (SELECT res, ceil(res / g)::BIGINT AS up, floor(res / g)::BIGINT - 1 AS dn FROM rs, tune),
    -- read twice (buckets, pts), never kept
    rows AS NOT MATERIALIZED (
        SELECT q.run, key AS gk, q.t_ms, q.count, floor(q.t_ms / t.g)::BIGINT AS k, t.g
        FROM requests q, tune t
        WHERE q.experiment = exp AND q.t_ms IS NOT NULL
    ),
    buckets AS (SELECT run, gk, k, sum(count)::BIGINT AS n, max(t_ms) AS tmax FROM rows GROUP BY ALL),
    -- the aligned buckets of a resolution that is a multiple of g, rolled up
    -- from these: bucket k lies in aligned bucket floor(k / (res / g)) (an
    -- exact quotient: res / g is a whole number, and k / (res / g) is at
    -- least 1 / (res / g) from the next whole number unless k + 1 is a
    -- multiple of it). Every row of the bucket has that floor(t_ms / res)
    -- when its last t_ms has: t_ms / res is at least k g / res, whose floor
    -- j is a double, and the division rounds, but monotonically; only a t_ms
    -- just below the bucket's end can round up to the next j. A resolution
    -- where some bucket's last t_ms disagrees is left to _aligned_peaks.
    roll AS (
        SELECT b.run, b.gk, r.res, floor(b.k / (r.res / t.g))::BIGINT AS j, b.n,
               floor(b.tmax / r.res) = floor(b.k / (r.res / t.g)) AS agree
        FROM buckets b, rs r, tune t
        WHERE r.res / t.g = floor(r.res / t.g)
    ),
    rolled AS (
        SELECT run, gk, res, j, sum(n)::BIGINT AS n
        FROM roll WHERE res IN (SELECT res FROM roll GROUP BY res HAVING bool_and(agree))
        GROUP BY ALL
    ),
    apeaks AS (
        SELECT run, gk, res, n AS peak, j * res AS peak_at_ms, sum(n) OVER (PARTITION BY run, gk, res)::BIGINT AS total
        FROM rolled
        QUALIFY row_number() OVER (PARTITION BY run, gk, res ORDER BY n DESC, j) = 1
    ),
    -- every bucket from a run's first to its last with its prefix sum,
    -- summed in chunks of 2^12 buckets (which run in parallel) and the
    -- chunks' offsets
    dense AS (
        SELECT d.run, d.gk, d.k, coalesce(b.n, 0) AS n
        FROM (SELECT run, gk, unnest(range(min(k), max(k) + 1)) AS k FROM buckets GROUP BY run, gk) d
        LEFT JOIN buckets b USING (run, gk, k)
    ),
    chunked AS (
        SELECT run, gk, k, n, k // 4096 AS c, sum(n) OVER (PARTITION BY run, gk, k // 4096 ORDER BY k ROWS UNBOUNDED PRECEDING) AS part FROM dense
    ),
    offs AS (
        SELECT run, gk, c, sum(t) OVER (PARTITION BY run, gk ORDER BY c) - t AS off
        FROM (SELECT run, gk, c, sum(n) AS t FROM chunked GROUP BY run, gk, c)
    ),
    pre AS MATERIALIZED (
        SELECT ch.run, ch.gk, ch.k, ch.n, ch.part + o.off AS upto FROM chunked ch JOIN offs o USING (run, gk, c)
    ),
    total AS (SELECT run, gk, max(upto) AS total, max(k) AS kmax FROM pre GROUP BY run, gk),
    -- every nonempty bucket at every resolution; its bounds U and L are
    -- taken in two passes, L's largest first, then the buckets whose U
    -- reaches it (one pass over both kept every bucket's bounds: 2.7 of
    -- 21 CPU seconds at 100 M rows)
    nb AS NOT MATERIALIZED (SELECT * FROM pre JOIN total USING (run, gk), rm WHERE n > 0),
    best AS (
        SELECT p.run, p.gk, p.res,
               max(CASE WHEN p.dn >= 0 THEN coalesce(l.upto, p.total) - (p.upto - p.n) ELSE 0 END) AS best
        FROM nb p LEFT JOIN pre l ON l.run = p.run AND l.gk = p.gk AND l.k = p.k + p.dn
        GROUP BY p.run, p.gk, p.res
    ),
    -- the buckets a fullest window may start in, and those its end may
    -- fall in: k + dn + 1 = k + floor(res / g) and k + up = k + ceil(res / g)
    cand AS MATERIALIZED (
        SELECT p.run, p.gk, p.res, p.up, p.dn, p.k
        FROM nb p LEFT JOIN pre u ON u.run = p.run AND u.gk = p.gk AND u.k = p.k + p.up
        JOIN best m ON m.run = p.run AND m.gk = p.gk AND m.res = p.res
        WHERE coalesce(u.upto, p.total) - (p.upto - p.n) >= m.best
    ),
    need AS (
        SELECT run, gk, res, k FROM cand
        UNION
        SELECT run, gk, res, k + unnest([dn + 1, up]) FROM cand
    ),
    pts AS MATERIALIZED (
        SELECT run, gk, k, t_ms, count, g
        FROM rows
        SEMI JOIN (SELECT unnest(nk) FROM (SELECT unnest(list(DISTINCT {'run': run, 'gk': gk, 'k': k})) AS nk FROM need)) USING (run, gk, k)),
    starts AS (
        SELECT DISTINCT p.run, p.gk, c.res, p.t_ms, p.k, floor((p.t_ms + c.res) / p.g)::BIGINT AS kb
        FROM pts p JOIN cand c USING (run, gk, k)
    ),
    -- C at a start t (in its bucket k) and at its end t + res (bucket kb)
    probes AS (
        SELECT run, gk, res, k AS b, t_ms AS pos, t_ms AS st, 0 AS side FROM starts
        UNION ALL
        SELECT s.run, s.gk, s.res,
               CASE WHEN n.k IS NOT NULL OR s.kb > t.kmax THEN s.kb
                    ELSE error('peaks: a sliding window ends past the buckets read (t_ms ' || s.t_ms || ')') END,
               s.t_ms + s.res, s.t_ms, 1
        FROM starts s JOIN total t USING (run, gk) LEFT JOIN need n ON n.run = s.run AND n.gk = s.gk AND n.res = s.res AND n.k = s.kb
    ),
    within AS (
        SELECT run, gk, res, b, st, side,
               sum(count) OVER (PARTITION BY run, gk, res, b ORDER BY pos, kind ROWS UNBOUNDED PRECEDING) AS lt
        FROM (SELECT p.run, p.gk, r.res, p.k AS b, p.t_ms AS pos, 1 AS kind, p.count, NULL::DOUBLE AS st, NULL::INTEGER AS side
              FROM pts p JOIN (SELECT DISTINCT run, gk, res, k FROM need) r USING (run, gk, k)
              UNION ALL
              SELECT run, gk, res, b, pos, 0, 0, st, side FROM probes)
        QUALIFY kind = 0
    ),
    c AS (
        SELECT w.run, w.gk, w.res, w.st, w.side,
               w.lt + coalesce(d.upto - d.n, t.total) AS c
        FROM within w JOIN total t USING (run, gk) LEFT JOIN pre d ON d.run = w.run AND d.gk = w.gk AND d.k = w.b
    ),
    counted AS (
        SELECT run, gk, res, st AS t_ms, (max(c) FILTER (WHERE side = 1) - max(c) FILTER (WHERE side = 0)) AS n
        FROM c GROUP BY run, gk, res, st
    )
    SELECT s.*, a.peak, a.peak_at_ms, a.total
    FROM (SELECT run, gk, res, max(n)::BIGINT AS n, min({'neg_n': -n, 't': t_ms}).t AS t_ms FROM counted GROUP BY run, gk, res) s
    LEFT JOIN apeaks a USING (run, gk, res);

-- With sliding, the aligned peaks of the resolutions the sliding pass
-- rolled up come from it; the others (all of them without sliding) are
-- summed from the rows. key is the group's key, gk: peaks_by's {'v': grp}
-- (a struct, so that a NULL group is a group like any other in the joins),
-- peaks' a constant true. A constant is no struct to hash and compare in
-- every GROUP BY, join and partition (peaks --sliding took 25 % longer
-- when it went through peaks_by's struct key, issue 41).
CREATE OR REPLACE MACRO _peaks(exp, key, resolutions_ms, sliding) AS TABLE
    WITH s AS MATERIALIZED (SELECT * FROM _sliding_peaks(exp, key, resolutions_ms, sliding)),
    a AS (
        SELECT run, gk, res, peak, peak_at_ms, total FROM s WHERE peak IS NOT NULL
        UNION ALL
        SELECT * FROM _aligned_peaks(exp, key, resolutions_ms,
                                     coalesce((SELECT list(DISTINCT res) FROM s WHERE peak IS NOT NULL), []::BIGINT[]))
    )
    SELECT a.gk, a.run, a.res AS resolution_ms, a.peak, a.peak_at_ms, a.total,
           s.n AS sliding_peak, s.t_ms AS sliding_at_ms
    FROM a LEFT JOIN s ON s.run = a.run AND s.gk = a.gk AND s.res = a.res;

-- peaks_by: grp is an expression over the columns of requests (rewind's
-- --by builds a struct of the fields, {'method': attrs ->> 'method'}), and
-- each run's rows with the same value of it, NULL included, are read as a
-- log of their own. Its first column is that value, grp; the others are
-- those of peaks, ordered by grp, then run and resolution_ms.
CREATE OR REPLACE MACRO peaks_by(exp, grp, resolutions_ms, sliding := false) AS TABLE
    SELECT gk.v AS grp, run, resolution_ms, peak, peak_at_ms, total, sliding_peak, sliding_at_ms
    FROM _peaks(exp, {'v': grp}, resolutions_ms, sliding)
    ORDER BY gk, run, resolution_ms;

CREATE OR REPLACE MACRO peaks(exp, resolutions_ms, sliding := false) AS TABLE
    SELECT * EXCLUDE (gk) FROM _peaks(exp, true, resolutions_ms, sliding)
    ORDER BY run, resolution_ms;
