-- burn_rate: multi-window, multi-burn-rate SLO alerts replayed over a log.
--
-- Question: with an SLO (99.9 % of requests good) and the SRE workbook's
-- alerting rules (page when both the 5 min and the 1 h burn rate exceed
-- 14.4; when both 30 min and 6 h exceed 6; ticket when both 6 h and 3 d
-- exceed 1), when would each rule first have fired, how much of the error
-- budget had gone by then, and how many requests had failed?
-- A run is one test; its clock starts at its first request's send. A
-- request counts when it ends (t_ms + latency_ms), as a monitoring system
-- sees it; a row with a count stands for that many. It is good when good
-- (a boolean over the request columns, e.g. outcome = 'ok') is true, bad
-- when false; a row for which good is NULL is not an SLI event at all.
-- The burn rate of a window (T - w, T] is bad / (requests * (1 - slo)); a
-- rule fires at the first T at which both its windows burn strictly faster
-- than factor, decided exactly: bad > factor * (1 - slo) * requests in
-- DECIMAL, never in floating point. T runs over every moment a window's
-- content changes (a request ending, or leaving a window w after it
-- ended), so the first firing is found in continuous time; with step_ms,
-- T runs over multiples of step_ms instead, as a rule evaluator would.
-- Unless partial, both windows must lie within the run (T >= long window):
-- a rule whose long window is longer than the run cannot fire.
-- Budget consumed is measured against the budget of period_ms at the
-- run's own mean request rate: bad / ((1 - slo) * requests * period / run).
-- Parameters:
--   exp        VARCHAR           experiment
--   good       BOOLEAN           expression over request columns: the request is good
--   slo        DECIMAL(18,9)     share of requests that must be good, e.g. 0.999 (default)
--   rules      STRUCT[]          name VARCHAR, short_ms BIGINT, long_ms BIGINT, factor DECIMAL(18,6);
--                                default the workbook's 5m/1h>14.4, 30m/6h>6, 6h/3d>1
--   period_ms  BIGINT            ms, the SLO period the budget is counted over (default 30 days)
--   step_ms    BIGINT            ms between evaluations; NULL (default): at every change
--   partial    BOOLEAN           evaluate windows that reach before the run's start (default false)
--   grp        ANY               burn_rate_by only, its second: the group, an expression over
--                                the columns of requests (docs/by.md)
-- Columns:
--   grp              ANY      burn_rate_by only, first: the group's value
--   run              VARCHAR  run (one test)
--   rule             VARCHAR  the rule, SHORT/LONG>FACTOR
--   fired_at_ms      DOUBLE   ms of test time when both windows first burn faster than factor; NULL when never
--   short_burn       DOUBLE   burn rate (ratio) of the short window then
--   long_burn        DOUBLE   burn rate (ratio) of the long window then
--   requests_before  BIGINT   requests ended by fired_at_ms
--   failed_before    BIGINT   requests, bad ones ended by fired_at_ms
--   budget_consumed  DOUBLE   share of the period's error budget those bad requests used
--   failed_total     BIGINT   requests, bad ones in the run
--   note             VARCHAR  why a rule did not fire: 'did not fire', or that its long window is longer than the run
--   run_ms           DOUBLE   ms, the run's length: from its first send to its last end
--   unjudged         BIGINT   rows of the run for which good is NULL (not counted)
-- Units: burn_rate_by: grp=- run=- rule=- fired_at_ms=ms short_burn=x long_burn=x requests_before=requests
-- Units: burn_rate_by: failed_before=requests budget_consumed=share failed_total=requests note=-
-- Units: burn_rate_by: run_ms=ms unjudged=-
-- Units: burn_rate: run=- rule=- fired_at_ms=ms short_burn=x long_burn=x requests_before=requests
-- Units: burn_rate: failed_before=requests budget_consumed=share failed_total=requests note=-
-- Units: burn_rate: run_ms=ms unjudged=-
CREATE OR REPLACE MACRO _br_default_rules() AS
    [{name: '5m/1h>14.4', short_ms: 300000, long_ms: 3600000, factor: 14.4::DECIMAL(18,6)},
     {name: '30m/6h>6', short_ms: 1800000, long_ms: 21600000, factor: 6::DECIMAL(18,6)},
     {name: '6h/3d>1', short_ms: 21600000, long_ms: 259200000, factor: 1::DECIMAL(18,6)}];

-- How it is found: a rule's first firing is decided exactly at candidate
-- moments, but most candidates are ruled out by a bound first. Time is cut
-- into buckets of g ns (bucket_ns, by default 1/64 of the shortest window;
-- never more than 2^22 buckets over the table's time span); for every
-- moment T in bucket k, [k*g, (k+1)*g), the window (T - w, T] lies within
-- the buckets k - ceil(w/g) to k (the union) and holds the buckets k + 1 -
-- floor(w/g) to k - 1 (the intersection). So bad(window) - thr *
-- requests(window) is at most bad(union) - thr * requests(intersection)
-- and at least bad(intersection) - thr * requests(union). A bucket whose
-- two upper bounds are not both above 0 holds no firing; in the first
-- bucket whose lower bounds both are (and where a candidate may lie) every
-- T fires. Only the candidates in the buckets still possible up to that
-- one are evaluated, each reading its counts from the buckets' prefix
-- sums and the points of its own bucket. All of it is integer ns and
-- DECIMAL: the bound changes which candidates are looked at, never the
-- answer, and every bucket size gives the same rows (a test holds it to
-- the plain evaluation of every candidate).

-- floor(x / g) in integers (// truncates toward 0)
CREATE OR REPLACE MACRO _br_floor(x, g) AS x // g - CASE WHEN x % g < 0 THEN 1 ELSE 0 END;

-- Per request: run, the group's own value gv, t_ms, ns of send and end on
-- the log's clock, as SLI events how many requests and how many bad, and 1
-- when it is none.
CREATE OR REPLACE MACRO _br_rows(exp, good, grp) AS TABLE
    SELECT run, grp AS gv, t_ms, round(t_ms * 1e6)::BIGINT AS send_ns,
           round(t_ms * 1e6)::BIGINT + coalesce(round(latency_ms * 1e6)::BIGINT, 0) AS end_ns,
           CASE WHEN (good) IS NOT NULL THEN count ELSE 0 END AS n,
           CASE WHEN NOT (good) THEN count ELSE 0 END AS bad,
           CASE WHEN (good) IS NULL THEN 1 ELSE 0 END AS none
    FROM requests
    WHERE experiment = exp AND t_ms IS NOT NULL;

-- _br_rows with the group wrapped in the key gk, {'v': grp}
CREATE OR REPLACE MACRO _br_points(exp, good, grp) AS TABLE
    SELECT run, {'v': gv} AS gk, * EXCLUDE (run, gv) FROM _br_rows(exp, good, grp);

-- The table's times: the span of its sends and ends in ns, which bounds
-- the bucket size below, and its longest latency in ms, how far before its
-- bucket a point's send can lie (min and max of a column come from its
-- statistics).
CREATE OR REPLACE MACRO _br_span() AS TABLE
    SELECT round((max(t_ms) - min(t_ms) + coalesce(max(latency_ms), 0)) * 1e6)::BIGINT AS span_ns,
           coalesce(max(latency_ms), 0) AS max_latency_ms
    FROM requests;

-- The rules checked, each with its windows in ns, its threshold thr, the
-- bucket size g (bounded below by the table's span) and its windows in
-- buckets: rounded up (the union) and down (the intersection).
CREATE OR REPLACE MACRO _br_rules(slo, rules, bucket_ns) AS TABLE
    WITH r AS (SELECT id, unnest(s) FROM (SELECT unnest(rules) AS s, generate_subscripts(rules, 1) AS id)),
    rr AS (
        SELECT id, name, round(short_ms * 1e6)::BIGINT AS short_ns, round(long_ms * 1e6)::BIGINT AS long_ns,
               factor::DECIMAL(18,6) * (1 - slo::DECIMAL(18,9)) AS thr
        FROM r
        WHERE CASE WHEN NOT (short_ms > 0 AND long_ms > 0 AND factor >= 0 AND slo > 0 AND slo < 1)
                   THEN error('burn_rate: windows must be positive, factor not negative, slo in (0, 1)') ELSE true END
    ),
    gs AS (
        SELECT greatest(coalesce(bucket_ns::BIGINT, (SELECT min(short_ns) FROM rr) // 64),
                        (SELECT span_ns FROM _br_span()) // 4194304,
                        1) AS g
    )
    SELECT rr.*, g, (short_ns + g - 1) // g AS s_up, short_ns // g AS s_dn, (long_ns + g - 1) // g AS l_up, long_ns // g AS l_dn
    FROM rr, gs;

-- One pass over the requests: per run, group and bucket k of end times
-- (buckets of g ns), the SLI events, the bad ones, the rows with good
-- NULL, the first send and the last end. An engine computes these rows
-- over a dataset (analyze/engine_burn_rate.go).
-- (grouped by the group's own value, wrapped in gk after: hashing the
-- struct {'v': grp} of every row was a fifth of burn_rate_by, issue 41)
CREATE OR REPLACE MACRO _br_bucket_sums(exp, good, grp, g) AS TABLE
    SELECT run, {'v': gv} AS gk, k, n, bad, none, s0, e1
    FROM (SELECT run, gv, _br_floor(end_ns, g) AS k, sum(n) AS n, sum(bad) AS bad, sum(none) AS none,
                 min(send_ns) AS s0, max(end_ns) AS e1
          FROM _br_rows(exp, good, grp)
          GROUP BY run, gv, _br_floor(end_ns, g));

-- The bound, over the buckets: a table of four parts, told apart by part:
-- 'run' (per run and group: t0, e1, dur, total, bad_total, unjudged),
-- 'pre' (per run, group and bucket k: the prefix sums cn, cb), 'poss' (per
-- run, group, rule id and bucket k that may hold a firing: the moments lo,
-- hi a candidate may take in it) and 'pb' (per run, group and bucket k:
-- the buckets whose points the candidates need).
CREATE OR REPLACE MACRO _br_plan(exp, grp, good, slo, rules, step_ms, partial, bucket_ns) AS TABLE
    WITH rb AS (SELECT * FROM _br_rules(slo, rules, bucket_ns)),
    step AS (SELECT round(step_ms * 1e6)::BIGINT AS ns),
    bsum AS MATERIALIZED (SELECT * FROM _br_bucket_sums(exp, good, grp, (SELECT min(g) FROM rb))),
    -- a run's clock starts at its first send; it lasts to its last end
    -- (gi numbers the runs and groups: the windows below partition by it,
    -- not by the group, whose struct made their sort a third of burn_rate_by
    -- with --by, issue 41)
    runs AS MATERIALIZED (
        SELECT *, row_number() OVER (ORDER BY run, gk) AS gi
        FROM (SELECT run, gk, min(s0) AS t0, max(e1) AS e1, max(e1) - min(s0) AS dur,
                     sum(n)::BIGINT AS total, sum(bad)::BIGINT AS bad_total, sum(none)::BIGINT AS unjudged
              FROM bsum GROUP BY run, gk)
    ),
    -- each bucket's sums with its run's number gi, the buckets within the
    -- run's (from its first send's to its last end's) only
    bsumi AS (
        SELECT r.gi, s.k, s.n::BIGINT AS n, s.bad::BIGINT AS bad
        FROM bsum s JOIN runs r USING (run, gk), (SELECT min(g) AS g FROM rb)
        WHERE s.k BETWEEN _br_floor(r.t0, g) AND _br_floor(r.e1, g)
    ),
    -- what the runs numbered before gi sum to
    off AS (
        SELECT gi, coalesce(sum(sum(n)) OVER w, 0) AS off_n, coalesce(sum(sum(bad)) OVER w, 0) AS off_b
        FROM bsumi GROUP BY gi
        WINDOW w AS (ORDER BY gi ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    ),
    -- prefix sums over every bucket of a run: running sums over all runs in
    -- (gi, k) order, less what the runs before sum to (one window over the
    -- lot took half the time of one partitioned by gi, issue 41; the
    -- windows carry gi alone, not the struct gk)
    pre AS (
        SELECT p.gi, p.k, (p.cn - coalesce(off.off_n, 0))::BIGINT AS cn, (p.cb - coalesce(off.off_b, 0))::BIGINT AS cb
        FROM (SELECT b.gi, b.k, sum(coalesce(s.n, 0)) OVER o AS cn, sum(coalesce(s.bad, 0)) OVER o AS cb
              FROM (SELECT gi, unnest(range(_br_floor(t0, g), _br_floor(e1, g) + 1)) AS k
                    FROM runs, (SELECT min(g) AS g FROM rb)) b
              LEFT JOIN bsumi s USING (gi, k)
              WINDOW o AS (ORDER BY b.gi, b.k)) p
        LEFT JOIN off USING (gi)
    ),
    -- per rule and bucket: the sums over its union and intersection (over
    -- buckets a..b, c[b] - c[a - 1]; an intersection of no bucket is
    -- empty), and [lo, hi], the moments of the bucket a candidate may take:
    -- within the run, after the long window unless partial, on a step
    sums AS (
        SELECT gi, id, k, thr, lo, hi,
               cn - lag(cn, s_up + 1, 0) OVER o AS un_s, cb - lag(cb, s_up + 1, 0) OVER o AS ub_s,
               CASE WHEN s_dn >= 1 THEN lag(cn, 1, 0) OVER o - lag(cn, s_dn, 0) OVER o ELSE 0 END AS in_s,
               CASE WHEN s_dn >= 1 THEN lag(cb, 1, 0) OVER o - lag(cb, s_dn, 0) OVER o ELSE 0 END AS ib_s,
               cn - lag(cn, l_up + 1, 0) OVER o AS un_l, cb - lag(cb, l_up + 1, 0) OVER o AS ub_l,
               CASE WHEN l_dn >= 1 THEN lag(cn, 1, 0) OVER o - lag(cn, l_dn, 0) OVER o ELSE 0 END AS in_l,
               CASE WHEN l_dn >= 1 THEN lag(cb, 1, 0) OVER o - lag(cb, l_dn, 0) OVER o ELSE 0 END AS ib_l
        FROM (SELECT pre.gi, pre.k, pre.cn, pre.cb, rb.id, rb.thr, rb.s_up, rb.s_dn, rb.l_up, rb.l_dn,
                     greatest(pre.k * rb.g, runs.t0 + CASE WHEN partial THEN 0 ELSE rb.long_ns END) AS lo0,
                     CASE WHEN step.ns IS NULL THEN lo0
                          ELSE runs.t0 + (greatest(lo0 - runs.t0, step.ns) + step.ns - 1) // step.ns * step.ns END AS lo,
                     least((pre.k + 1) * rb.g - 1, runs.e1) AS hi
              FROM pre JOIN runs USING (gi), rb, step)
        WINDOW o AS (PARTITION BY gi, id ORDER BY k)
    ),
    first_sure AS (
        SELECT gi, id, min(k) AS kc FROM sums
        WHERE lo <= hi AND ib_s > thr * un_s AND ib_l > thr * un_l
        GROUP BY gi, id
    ),
    poss AS MATERIALIZED (
        SELECT r.run, r.gk, s.id, s.k, s.lo, s.hi
        FROM sums s LEFT JOIN first_sure f USING (gi, id) JOIN runs r USING (gi)
        WHERE s.lo <= s.hi AND ub_s > thr * in_s AND ub_l > thr * in_l AND (f.kc IS NULL OR s.k <= f.kc)
    ),
    -- the points the candidates need: a point gives a candidate in bucket K
    -- (its end, or its end plus a window) from bucket K, K - w // g or
    -- K - w // g - 1, and a probe at T - w of a T in K reads one of those
    pb AS (
        SELECT DISTINCT p.run, p.gk, p.k - unnest([0, rb.s_dn, rb.s_dn + 1, rb.l_dn, rb.l_dn + 1]) AS k
        FROM poss p JOIN rb USING (id)
    )
    SELECT 'run' AS part, run, gk, NULL::BIGINT AS id, NULL::BIGINT AS k, NULL::BIGINT AS lo, NULL::BIGINT AS hi,
           NULL::HUGEINT AS cn, NULL::HUGEINT AS cb, t0, e1, dur, total, bad_total, unjudged
    FROM runs
    UNION ALL
    SELECT 'pre', run, gk, NULL, k, NULL, NULL, cn, cb, NULL, NULL, NULL, NULL, NULL, NULL FROM pre JOIN runs USING (gi)
    UNION ALL
    SELECT 'poss', run, gk, id, k, lo, hi, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM poss
    UNION ALL
    SELECT 'pb', run, gk, NULL, k, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM pb;

-- The buckets whose points the candidates need (_br_plan's 'pb'), for an
-- engine that brings back the points of those buckets only; the arguments
-- are burn_rate_by's.
CREATE OR REPLACE MACRO _br_candidate_buckets(exp, grp, good, slo := 0.999, rules := _br_default_rules(),
                                              period_ms := 2592000000, step_ms := NULL, partial := false,
                                              bucket_ns := NULL) AS TABLE
    SELECT run, gk, k FROM _br_plan(exp, grp, good, slo, rules, step_ms, partial, bucket_ns) WHERE part = 'pb';

CREATE OR REPLACE MACRO burn_rate_by(exp, grp, good, slo := 0.999, rules := _br_default_rules(),
                                     period_ms := 2592000000, step_ms := NULL, partial := false,
                                     bucket_ns := NULL) AS TABLE
    WITH rr AS (SELECT * FROM _br_rules(slo, rules, bucket_ns)),
    rb AS (SELECT * FROM rr),
    gs AS (SELECT min(g) AS g FROM rr),
    step AS (SELECT round(step_ms * 1e6)::BIGINT AS ns),
    plan AS MATERIALIZED (SELECT * FROM _br_plan(exp, grp, good, slo, rules, step_ms, partial, bucket_ns)),
    runs AS (SELECT run, gk, t0, e1, dur, total, bad_total, unjudged FROM plan WHERE part = 'run'),
    pre AS (SELECT run, gk, k, cn, cb FROM plan WHERE part = 'pre'),
    poss AS (SELECT run, gk, id, k, lo, hi FROM plan WHERE part = 'poss'),
    pb AS (SELECT run, gk, k FROM plan WHERE part = 'pb'),
    -- (read within the sends those buckets can hold, so that a scan skips
    -- the row groups outside it)
    pr AS (
        SELECT min(k) * g / 1e6 - (SELECT max_latency_ms FROM _br_span()) - 1 AS lo_ms, (max(k) + 1) * g / 1e6 + 1 AS hi_ms
        FROM pb, gs GROUP BY g
    ),
    fp AS MATERIALIZED (
        SELECT p.* FROM (SELECT q.run, q.gk, q.end_ns AS t, q.n, q.bad, _br_floor(q.end_ns, g) AS k
                         FROM _br_points(exp, good, grp) q, gs
                         WHERE q.t_ms BETWEEN (SELECT lo_ms FROM pr) AND (SELECT hi_ms FROM pr)) p
        SEMI JOIN pb USING (run, gk, k)
    ),
    -- the candidates in the possible buckets: every moment a window's
    -- content changes (a request ends, or leaves a window), the moment the
    -- long window first lies within the run; with step_ms, every step
    cand AS (
        SELECT DISTINCT c.run, c.gk, c.id, c.t
        FROM (SELECT c.run, c.gk, c.id, c.t, _br_floor(c.t, rb.g) AS k
              FROM (SELECT fp.run, fp.gk, rb.id, fp.t + unnest([0, rb.short_ns, rb.long_ns]) AS t FROM fp, rb, step WHERE step.ns IS NULL
                    UNION ALL
                    SELECT run, gk, id, t0 + long_ns FROM runs, rb, step WHERE step.ns IS NULL AND NOT partial
                    UNION ALL
                    SELECT run, gk, id, unnest(range(lo, hi + 1, step.ns)) FROM poss, step WHERE step.ns IS NOT NULL) c
              JOIN rb USING (id) JOIN runs USING (run, gk)
              WHERE c.t <= runs.e1 AND (partial OR c.t >= runs.t0 + rb.long_ns)) c
        SEMI JOIN poss ON poss.run = c.run AND poss.gk = c.gk AND poss.id = c.id AND poss.k = c.k
    ),
    -- each candidate's counts at T, T - short and T - long: the prefix sum
    -- of the buckets before the probe's, plus a running sum over the
    -- points of its bucket with the probes sorted in among them (a probe
    -- adds nothing; one at the same time as a point comes after it).
    -- Times are integer ns, so (T - w, T] is exact.
    probes AS (
        SELECT c.run, c.gk, c.id, c.t AS tc, kk.k, c.t - CASE kk.k WHEN 0 THEN 0 WHEN 1 THEN rb.short_ns ELSE rb.long_ns END AS pos
        FROM cand c JOIN rb USING (id), (SELECT unnest([0, 1, 2]) AS k) kk
    ),
    cum AS (
        SELECT id, tc, k, sum(n) OVER o AS cn, sum(bad) OVER o AS cb, run, gk, b
        FROM (SELECT run, gk, t AS pos, n, bad, k AS b, NULL::BIGINT AS id, NULL::BIGINT AS tc, NULL::INTEGER AS k FROM fp
              UNION ALL
              SELECT run, gk, pos, 0, 0, _br_floor(pos, g), id, tc, k FROM probes, gs)
        WINDOW o AS (PARTITION BY run, gk, b ORDER BY pos)
    ),
    vals AS (
        SELECT c.run, c.gk, c.id, c.tc, c.k, c.cn + coalesce(p.cn, 0) AS cn, c.cb + coalesce(p.cb, 0) AS cb
        FROM cum c LEFT JOIN pre p ON p.run = c.run AND p.gk = c.gk AND p.k = c.b - 1
        WHERE c.id IS NOT NULL
    ),
    w AS (
        SELECT c.run, c.gk, c.id, c.tc - runs.t0 AS t, rr.thr,
               (max(cn) FILTER (WHERE k = 0) - max(cn) FILTER (WHERE k = 1))::BIGINT AS n_s,
               (max(cb) FILTER (WHERE k = 0) - max(cb) FILTER (WHERE k = 1))::BIGINT AS bad_s,
               (max(cn) FILTER (WHERE k = 0) - max(cn) FILTER (WHERE k = 2))::BIGINT AS n_l,
               (max(cb) FILTER (WHERE k = 0) - max(cb) FILTER (WHERE k = 2))::BIGINT AS bad_l,
               max(cn) FILTER (WHERE k = 0)::BIGINT AS n_t, max(cb) FILTER (WHERE k = 0)::BIGINT AS bad_t
        FROM vals c JOIN rr USING (id) JOIN runs USING (run, gk)
        GROUP BY c.run, c.gk, c.id, c.tc, rr.thr, runs.t0
    ),
    fired AS (
        SELECT run, gk, id, min({t: t, n_s: n_s, bad_s: bad_s, n_l: n_l, bad_l: bad_l, n_t: n_t, bad_t: bad_t}) AS f
        FROM w
        WHERE bad_s > thr * n_s AND bad_l > thr * n_l
        GROUP BY run, gk, id
    )
    SELECT runs.gk.v AS grp, runs.run, rr.name AS rule, f.f.t / 1e6 AS fired_at_ms,
           -- one rounding each: the budget in billionths is an integer
           (f.f.bad_s::HUGEINT * 1000000000)::DOUBLE / (f.f.n_s::HUGEINT * b.units)::DOUBLE AS short_burn,
           (f.f.bad_l::HUGEINT * 1000000000)::DOUBLE / (f.f.n_l::HUGEINT * b.units)::DOUBLE AS long_burn,
           f.f.n_t AS requests_before, f.f.bad_t AS failed_before,
           (f.f.bad_t::HUGEINT * 1000000000 * greatest(runs.dur, 1))::DOUBLE
               / (b.units::HUGEINT * runs.total * round(period_ms * 1e6)::BIGINT)::DOUBLE AS budget_consumed,
           runs.bad_total AS failed_total,
           CASE WHEN f.f IS NOT NULL THEN NULL
                WHEN NOT partial AND rr.long_ns > runs.dur THEN 'long window longer than the run'
                ELSE 'did not fire' END AS note,
           runs.dur / 1e6 AS run_ms, runs.unjudged
    FROM runs CROSS JOIN rr
    CROSS JOIN (SELECT ((1 - slo::DECIMAL(18,9)) * 1000000000)::BIGINT AS units) b
    LEFT JOIN fired f ON f.run = runs.run AND f.gk = runs.gk AND f.id = rr.id
    ORDER BY runs.gk, runs.run, rr.id;

-- burn rates per group: burn_rate_by(exp, grp, good, ...) splits each
-- run's rows by the value of grp, an expression over the columns of
-- requests (rewind's --by builds a struct of the fields); each group, NULL
-- included, is read as a log of its own: its clock starts at its own first
-- send and its budget is counted at its own mean rate. Its first column is
-- that value, grp; the others are those of burn_rate, ordered by grp, then
-- run and rule.
CREATE OR REPLACE MACRO burn_rate(exp, good, slo := 0.999, rules := _br_default_rules(),
                                  period_ms := 2592000000, step_ms := NULL, partial := false,
                                  bucket_ns := NULL) AS TABLE
    SELECT * EXCLUDE (grp)
    FROM burn_rate_by(exp, true, good, slo := slo, rules := rules, period_ms := period_ms, step_ms := step_ms,
                      partial := partial, bucket_ns := bucket_ns);
