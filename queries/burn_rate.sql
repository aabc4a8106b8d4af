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
-- Columns:
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
CREATE OR REPLACE MACRO _br_default_rules() AS
    [{name: '5m/1h>14.4', short_ms: 300000, long_ms: 3600000, factor: 14.4::DECIMAL(18,6)},
     {name: '30m/6h>6', short_ms: 1800000, long_ms: 21600000, factor: 6::DECIMAL(18,6)},
     {name: '6h/3d>1', short_ms: 21600000, long_ms: 259200000, factor: 1::DECIMAL(18,6)}];

-- Per run and ns of test time at which requests ended: requests and bad ones.
CREATE OR REPLACE MACRO _br_points(exp, good) AS TABLE
    WITH q AS (
        SELECT run, round(t_ms * 1e6)::BIGINT AS send_ns,
               round(t_ms * 1e6)::BIGINT + coalesce(round(latency_ms * 1e6)::BIGINT, 0) AS end_ns,
               count, (good) AS g
        FROM requests
        WHERE experiment = exp AND t_ms IS NOT NULL
    ),
    p AS (
        SELECT run, end_ns - min(send_ns) OVER (PARTITION BY run) AS t, count, g FROM q
    )
    SELECT run, t, coalesce(sum(count) FILTER (WHERE g IS NOT NULL), 0)::BIGINT AS n,
           coalesce(sum(count) FILTER (WHERE NOT g), 0)::BIGINT AS bad
    FROM p GROUP BY run, t;

CREATE OR REPLACE MACRO burn_rate(exp, good, slo := 0.999, rules := _br_default_rules(),
                                  period_ms := 2592000000, step_ms := NULL, partial := false) AS TABLE
    WITH pts AS MATERIALIZED (SELECT * FROM _br_points(exp, good)),
    runs AS (SELECT run, max(t) AS dur, sum(n)::BIGINT AS total, sum(bad)::BIGINT AS bad_total FROM pts GROUP BY run),
    r AS (SELECT id, unnest(s) FROM (SELECT unnest(rules) AS s, generate_subscripts(rules, 1) AS id)),
    rr AS (
        SELECT id, name, round(short_ms * 1e6)::BIGINT AS short_ns, round(long_ms * 1e6)::BIGINT AS long_ns,
               factor::DECIMAL(18,6) * (1 - slo::DECIMAL(18,9)) AS thr
        FROM r
        WHERE CASE WHEN NOT (short_ms > 0 AND long_ms > 0 AND factor >= 0 AND slo > 0 AND slo < 1)
                   THEN error('burn_rate: windows must be positive, factor not negative, slo in (0, 1)') ELSE true END
    ),
    -- every moment a window's content changes: a request ends, or leaves a
    -- window; and when the long window first lies within the run. With
    -- step_ms, every step instead.
    cand AS (
        SELECT p.run, rr.id, p.t FROM pts p, rr WHERE step_ms IS NULL
        UNION
        SELECT p.run, rr.id, p.t + rr.short_ns FROM pts p, rr WHERE step_ms IS NULL
        UNION
        SELECT p.run, rr.id, p.t + rr.long_ns FROM pts p, rr WHERE step_ms IS NULL
        UNION
        SELECT run, rr.id, rr.long_ns FROM runs, rr WHERE step_ms IS NULL AND NOT partial
        UNION
        SELECT run, rr.id, k * round(step_ms * 1e6)::BIGINT
        FROM runs, rr, range(1, CASE WHEN step_ms IS NULL THEN 1 ELSE dur // round(step_ms * 1e6)::BIGINT + 1 END) s(k)
    ),
    -- the windows' counts at each candidate T from running sums over the
    -- points, read at T, T - short and T - long by probes sorted in among
    -- them (a probe adds nothing; one at the same time as a point comes
    -- after it): one sort and a streaming sum, where a RANGE frame of w
    -- would be superlinear. Times are integer ns, so (T - w, T] is exact.
    probes AS (
        SELECT c.run, c.id, c.t AS tc, k.k,
               c.t - CASE k.k WHEN 0 THEN 0 WHEN 1 THEN rr.short_ns ELSE rr.long_ns END AS pos
        FROM cand c JOIN rr USING (id) JOIN runs USING (run), (SELECT unnest([0, 1, 2]) AS k) k
        WHERE c.t <= runs.dur AND (partial OR c.t >= rr.long_ns)
    ),
    cum AS (
        SELECT id, tc, k, sum(n) OVER o AS cn, sum(bad) OVER o AS cb, run
        FROM (SELECT run, t AS pos, n, bad, NULL::BIGINT AS id, NULL::BIGINT AS tc, NULL::INTEGER AS k FROM pts
              UNION ALL
              SELECT run, pos, 0, 0, id, tc, k FROM probes)
        WINDOW o AS (PARTITION BY run ORDER BY pos)
    ),
    w AS (
        SELECT c.run, c.id, c.tc AS t, rr.thr,
               (max(cn) FILTER (WHERE k = 0) - max(cn) FILTER (WHERE k = 1))::BIGINT AS n_s,
               (max(cb) FILTER (WHERE k = 0) - max(cb) FILTER (WHERE k = 1))::BIGINT AS bad_s,
               (max(cn) FILTER (WHERE k = 0) - max(cn) FILTER (WHERE k = 2))::BIGINT AS n_l,
               (max(cb) FILTER (WHERE k = 0) - max(cb) FILTER (WHERE k = 2))::BIGINT AS bad_l,
               max(cn) FILTER (WHERE k = 0)::BIGINT AS n_t, max(cb) FILTER (WHERE k = 0)::BIGINT AS bad_t
        FROM cum c JOIN rr USING (id)
        WHERE c.id IS NOT NULL
        GROUP BY c.run, c.id, c.tc, rr.thr
    ),
    fired AS (
        SELECT run, id, min({t: t, n_s: n_s, bad_s: bad_s, n_l: n_l, bad_l: bad_l, n_t: n_t, bad_t: bad_t}) AS f
        FROM w
        WHERE bad_s > thr * n_s AND bad_l > thr * n_l
        GROUP BY run, id
    )
    SELECT runs.run, rr.name AS rule, f.f.t / 1e6 AS fired_at_ms,
           -- one rounding each: the budget in billionths is an integer
           (f.f.bad_s::HUGEINT * 1000000000)::DOUBLE / (f.f.n_s::HUGEINT * b.units)::DOUBLE AS short_burn,
           (f.f.bad_l::HUGEINT * 1000000000)::DOUBLE / (f.f.n_l::HUGEINT * b.units)::DOUBLE AS long_burn,
           f.f.n_t AS requests_before, f.f.bad_t AS failed_before,
           (f.f.bad_t::HUGEINT * 1000000000 * greatest(runs.dur, 1))::DOUBLE
               / (b.units::HUGEINT * runs.total * round(period_ms * 1e6)::BIGINT)::DOUBLE AS budget_consumed,
           runs.bad_total AS failed_total,
           CASE WHEN f.f IS NOT NULL THEN NULL
                WHEN NOT partial AND rr.long_ns > runs.dur THEN 'long window longer than the run'
                ELSE 'did not fire' END AS note
    FROM runs CROSS JOIN rr
    CROSS JOIN (SELECT ((1 - slo::DECIMAL(18,9)) * 1000000000)::BIGINT AS units) b
    LEFT JOIN fired f ON f.run = runs.run AND f.id = rr.id
    ORDER BY runs.run, rr.id;
