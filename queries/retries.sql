-- retries: what each retry strategy sent, and what it bought.
--
-- Question: per run, how many attempts went out, how many were retries or
-- were refused by a retry budget, how many operations that started in the
-- affected interval (a fault) succeeded, and how long operations took?
-- A logical operation is the attempts of one run sharing req (or req_text;
-- a row with neither is an operation of its own). It starts at its first
-- send and ends when its last attempt ends (t_ms + latency_ms); it succeeded
-- when any attempt was ok. Attempt 0 is a first attempt, any other a retry.
-- A row with a count column stands for that many attempts in the attempt
-- counts. Latencies are summed in DECIMAL(18,6), so an operation's latency
-- is the exact difference of the logged times, rounded once to DOUBLE; the
-- times are first taken relative to a whole ms near the run's first (an
-- exact subtraction), so epoch milliseconds fit as well as relative ones.
-- Parameters:
--   exp               VARCHAR  experiment
--   affected_from_ms  DOUBLE   ms, start of the affected interval (inclusive)
--   affected_to_ms    DOUBLE   ms, end of the affected interval (exclusive); both NULL:
--                              the whole run, every operation with a start counts
--   grp               ANY      retries_by only, its second: the group, an expression over
--                              the columns of requests (docs/by.md)
-- Columns:
--   grp               ANY      retries_by only, first: the group's value
--   run               VARCHAR  run (the strategy)
--   requests          BIGINT   requests, attempts sent (first attempts and retries)
--   first_attempts    BIGINT   requests, attempts with attempt = 0
--   retries           BIGINT   requests, attempts with attempt > 0
--   budget_denied     BIGINT   requests, failed attempts not retried because of the budget (drop_reason = 'budget')
--   affected_ops      BIGINT   operations whose first send is in [affected_from_ms, affected_to_ms)
--   affected_success  DOUBLE   share (0-1) of affected_ops with an ok attempt; NULL when there are none
--   p95_ms            DOUBLE   ms, 95th percentile of operation latency over all operations (quantile_cont)
--   p99_ms            DOUBLE   ms, 99th percentile of operation latency over all operations (quantile_cont)
-- Units: retries_by: grp=- run=- requests=requests first_attempts=requests retries=requests
-- Units: retries_by: budget_denied=requests affected_ops=operations affected_success=share
-- Units: retries_by: p95_ms=ms p99_ms=ms
-- Units: retries: run=- requests=requests first_attempts=requests retries=requests
-- Units: retries: budget_denied=requests affected_ops=operations affected_success=share p95_ms=ms
-- Units: retries: p99_ms=ms
-- Most operations are one row (a first attempt never retried), and grouping
-- every row by its operation means a hash table as large as the log. So
-- only the rows of reqs that may have several rows are grouped: reqs with a
-- row whose attempt is not 0, reqs in a block of 64 req values whose first
-- attempts hold some req twice (more rows than distinct bits: rare, and a
-- false alarm only sends a block through the grouping), and rows without a
-- req. Every other row is an operation by itself, whose latency is the
-- same difference over one row: (t + latency) - t in DECIMAL is latency.
-- (The blocks are found per run, not per run and group: a req twice in a
-- group is twice in its run, and a block that holds a req twice in two
-- groups is a false alarm for each. Hashing the struct {'v': grp} of every
-- first attempt was a tenth of retries_by with --by, issue 41.)
CREATE OR REPLACE MACRO _retry_multi(exp, grp) AS TABLE
    WITH twice AS (
        SELECT run, req >> 6 AS b
        FROM requests
        WHERE experiment = exp AND attempt = 0 AND req IS NOT NULL
        GROUP BY ALL
        HAVING count(*) > bit_count(bit_or(1::UBIGINT << (req & 63)::UBIGINT))
    )
    SELECT run, {'v': grp} AS gk, req FROM requests
    WHERE experiment = exp AND req IS NOT NULL AND attempt <> 0
    UNION
    SELECT r.run, {'v': grp} AS gk, r.req FROM requests r JOIN twice t ON t.run = r.run AND t.b = r.req >> 6
    WHERE r.experiment = exp AND r.attempt = 0;

-- The rows that are grouped into operations: those of the reqs above, and
-- the rows without a req. With a grp (retries_by), the reqs are those of
-- each run's group: an operation is the attempts of one run and group.
CREATE OR REPLACE MACRO _retry_grouped(exp, grp) AS TABLE
    -- the rows of the reqs (run and req, plain keys), then of their groups:
    -- a struct key per row of the table was a third of retries_by with
    -- --by (issue 41)
    SELECT run, gk, req, req_text, seq, attempt, t_ms, latency_ms, outcome, count, drop_reason
    FROM (SELECT r.*, {'v': grp} AS gk, m.gks
          FROM requests r JOIN (SELECT run, req, list(gk) AS gks FROM _retry_multi(exp, grp) GROUP BY run, req) m
               ON m.run = r.run AND m.req = r.req
          WHERE r.experiment = exp)
    WHERE list_contains(gks, gk)
    UNION ALL
    SELECT run, {'v': grp} AS gk, req, req_text, seq, attempt, t_ms, latency_ms, outcome, count, drop_reason
    FROM requests
    WHERE experiment = exp AND req IS NULL;

-- An operation's latency over its rows (an aggregate), its times taken
-- relative to base, and the parts of its key after run and req: req, else
-- req_text, else the row itself.
CREATE OR REPLACE MACRO _op_ms(t_ms, latency_ms, base) AS
    (max((t_ms - base)::DECIMAL(18,6) + latency_ms::DECIMAL(18,6)) - min((t_ms - base)::DECIMAL(18,6)))::DOUBLE;
CREATE OR REPLACE MACRO _op_text(req, req_text) AS CASE WHEN req IS NULL THEN req_text END;
CREATE OR REPLACE MACRO _op_row(req, req_text, seq) AS CASE WHEN req IS NULL AND req_text IS NULL THEN seq END;

-- Whether a start t is in the affected interval [from, to); from and to
-- both NULL: every start counts (the whole run, what analyze/retries.go
-- passes when no interval is given or stored), which reads t's validity
-- instead of two comparisons per row (issue 41).
CREATE OR REPLACE MACRO _retry_in(t, from_ms, to_ms) AS
    CASE WHEN from_ms IS NULL AND to_ms IS NULL THEN t IS NOT NULL ELSE t >= from_ms AND t < to_ms END;

-- The base of a run's times (lo and hi its smallest and largest t_ms): a
-- whole ms between 0 and every time, so that t - base is exact (t and the
-- whole number are both multiples of t's ulp, and |t - base| <= |t|) and
-- t - base is within the run's span, and DECIMAL(18,6) holds it. Times on
-- both sides of 0 keep base 0.
CREATE OR REPLACE MACRO _op_base(lo, hi) AS
    CASE WHEN lo >= 0 THEN floor(lo) WHEN hi <= 0 THEN ceil(hi) ELSE 0 END;

-- Every operation: its run, first send, latency and whether it succeeded.
CREATE OR REPLACE MACRO _retry_ops(exp) AS TABLE
    WITH g AS (SELECT *, _op_base(min(t_ms) OVER w, max(t_ms) OVER w) AS base FROM _retry_grouped(exp, true) WINDOW w AS (PARTITION BY run))
    SELECT run, min(t_ms) AS start_ms, _op_ms(t_ms, latency_ms, base) AS op_ms, bool_or(outcome = 'ok') AS ok
    FROM g
    GROUP BY run, req, _op_text(req, req_text), _op_row(req, req_text, seq)
    UNION ALL
    SELECT run, t_ms, CASE WHEN t_ms IS NOT NULL THEN latency_ms::DECIMAL(18,6)::DOUBLE END, outcome = 'ok'
    FROM requests r ANTI JOIN _retry_multi(exp, true) m USING (run, req)
    WHERE r.experiment = exp AND r.attempt = 0 AND r.req IS NOT NULL;

-- The percentiles are quantile_cont's, computed from counts: the one-row
-- operations are the first attempts with a req less those of the grouped
-- reqs, so their latencies are counted per distinct latency over all first
-- attempts, and the grouped ones' first attempts taken off again; no
-- anti-join, and no list of every latency. With the grouped operations'
-- latencies, each run's distinct latencies and their counts give the values
-- at ranks floor(r) and ceil(r), r = (n - 1) q, and lo (1 - d) + hi d,
-- d = r - floor(r), is what quantile_cont interpolates for a DOUBLE, in the
-- same order of operations. The affected counts are taken the same way.
-- The attempt counts need no pass of their own: the first attempts with a
-- req are counted in the latency pass, and every other row (a retry, a
-- row without a req) is among the grouped rows.
-- _retry_sums is the per-request part of retries_by, reduced: per run and
-- group one row of totals (c NULL: the attempt counts, affected_ops and
-- affected_ok, the operations of affected_ops with an ok attempt), and the
-- histogram of operation latencies, one row per distinct latency v (ms)
-- with its count c of operations (c > 0; the other columns NULL). Another
-- engine computes it (analyze/engine_retries.go) and a TEMP macro of the
-- same name reads its rows, so retries_by finishes the same way on both.
CREATE OR REPLACE MACRO _retry_sums(exp, grp, affected_from_ms, affected_to_ms) AS TABLE
    WITH g AS MATERIALIZED (SELECT * FROM _retry_grouped(exp, grp)),
    bases AS (SELECT run, gk, _op_base(min(t_ms), max(t_ms)) AS base FROM g GROUP BY run, gk),
    mops AS (
        SELECT run, gk, min(t_ms) AS start_ms, _op_ms(t_ms, latency_ms, base) AS op_ms, bool_or(outcome = 'ok') AS ok
        FROM g JOIN bases USING (run, gk)
        GROUP BY run, gk, req, _op_text(req, req_text), _op_row(req, req_text, seq)
    ),
    -- first attempts with a req, per run and latency, as one-row operations
    -- (sign 1), less those of the grouped reqs (sign -1, from the rows
    -- grouped above); cnt and budget are the table's rows' attempt counts
    -- (the grouped rows' branch adds 0 and no drop reason)
    -- (grouped by grp's own value, wrapped in gk after: hashing the struct
    -- {'v': true} of every first attempt was a tenth of retries, issue 41)
    firsts AS (
        SELECT run, {'v': gv} AS gk, latency_ms, n, aff, aff_ok, cnt, budget
        FROM (SELECT run, gv, latency_ms,
                     sum(sign) FILTER (WHERE t_ms IS NOT NULL AND latency_ms IS NOT NULL) AS n,
                     sum(sign) FILTER (WHERE _retry_in(t_ms, affected_from_ms, affected_to_ms)) AS aff,
                     sum(sign) FILTER (WHERE _retry_in(t_ms, affected_from_ms, affected_to_ms) AND outcome = 'ok') AS aff_ok,
                     sum(count) AS cnt, sum(count) FILTER (WHERE drop_reason = 'budget') AS budget
              FROM (SELECT run, grp AS gv, latency_ms, t_ms, outcome, 1 AS sign, count, drop_reason FROM requests
                    WHERE experiment = exp AND attempt = 0 AND req IS NOT NULL
                    UNION ALL
                    SELECT run, gk.v, latency_ms, t_ms, outcome, -1, 0, NULL FROM g WHERE attempt = 0 AND req IS NOT NULL)
              GROUP BY run, gv, latency_ms)
    ),
    -- the attempt counts: the first attempts with a req from firsts, every
    -- other row (a retry, a row without a req) from the grouped rows
    attempts AS (
        SELECT run, gk, sum(cnt)::BIGINT AS requests, sum(first)::BIGINT AS first_attempts,
               sum(retr)::BIGINT AS retries, sum(budget)::BIGINT AS budget_denied
        FROM (SELECT run, gk, cnt, cnt AS first, 0 AS retr, coalesce(budget, 0) AS budget FROM firsts
              UNION ALL
              SELECT run, gk, sum(count), coalesce(sum(count) FILTER (WHERE attempt = 0), 0),
                     coalesce(sum(count) FILTER (WHERE attempt > 0), 0),
                     coalesce(sum(count) FILTER (WHERE drop_reason = 'budget'), 0)
              FROM g WHERE attempt <> 0 OR req IS NULL GROUP BY run, gk)
        GROUP BY run, gk
    ),
    -- every operation's latency with a count: the first attempts' counts and
    -- +1 per grouped operation
    parts AS MATERIALIZED (
        SELECT run, gk, latency_ms::DECIMAL(18,6)::DOUBLE AS v, coalesce(n, 0) AS n, coalesce(aff, 0) AS aff,
               coalesce(aff_ok, 0) AS aff_ok
        FROM firsts
        UNION ALL
        SELECT run, gk, op_ms, (op_ms IS NOT NULL)::BIGINT,
               _retry_in(start_ms, affected_from_ms, affected_to_ms)::BIGINT,
               (_retry_in(start_ms, affected_from_ms, affected_to_ms) AND ok)::BIGINT
        FROM mops
    ),
    affected AS (
        SELECT run, gk, coalesce(sum(aff), 0)::BIGINT AS affected_ops, coalesce(sum(aff_ok), 0)::BIGINT AS affected_ok
        FROM parts GROUP BY run, gk
    )
    SELECT run, gk, NULL::DOUBLE AS v, NULL::BIGINT AS c, a.requests, a.first_attempts, a.retries, a.budget_denied,
           f.affected_ops, f.affected_ok
    FROM attempts a JOIN affected f USING (run, gk)
    UNION ALL
    SELECT run, gk, v, sum(n)::BIGINT, NULL, NULL, NULL, NULL, NULL, NULL
    FROM parts WHERE v IS NOT NULL GROUP BY run, gk, v HAVING sum(n) > 0;

-- retries per group, finished from _retry_sums: the percentiles picked from
-- each run's histogram as described above.
CREATE OR REPLACE MACRO retries_by(exp, grp, affected_from_ms, affected_to_ms) AS TABLE
    WITH s AS MATERIALIZED (SELECT * FROM _retry_sums(exp, grp, affected_from_ms, affected_to_ms)),
    ranked AS MATERIALIZED (
        SELECT run, gk, v, c, sum(c) OVER (PARTITION BY run, gk ORDER BY v ROWS UNBOUNDED PRECEDING) AS upto,
               sum(c) OVER (PARTITION BY run, gk) AS n
        FROM s WHERE c IS NOT NULL
    ),
    qs AS (
        SELECT run, gk, q, (n - 1)::DOUBLE * q AS r
        FROM (SELECT DISTINCT run, gk, n FROM ranked), (SELECT unnest([0.95, 0.99]::DOUBLE[]) AS q)
    ),
    picked AS (
        SELECT qs.run, qs.gk, qs.q,
               CASE WHEN floor(qs.r) = ceil(qs.r) THEN lo.v ELSE lo.v * (1.0 - (qs.r - floor(qs.r))) + hi.v * (qs.r - floor(qs.r)) END AS p
        FROM qs
        JOIN ranked lo ON lo.run = qs.run AND lo.gk = qs.gk AND lo.upto - lo.c <= floor(qs.r) AND floor(qs.r) < lo.upto
        JOIN ranked hi ON hi.run = qs.run AND hi.gk = qs.gk AND hi.upto - hi.c <= ceil(qs.r) AND ceil(qs.r) < hi.upto
    )
    SELECT a.gk.v AS grp, a.run, a.requests, a.first_attempts, a.retries, a.budget_denied,
           a.affected_ops,
           CASE WHEN a.affected_ops > 0 THEN a.affected_ok / a.affected_ops END AS affected_success,
           p95.p AS p95_ms, p99.p AS p99_ms
    FROM (SELECT * FROM s WHERE c IS NULL) a
    LEFT JOIN picked p95 ON p95.run = a.run AND p95.gk = a.gk AND p95.q = 0.95
    LEFT JOIN picked p99 ON p99.run = a.run AND p99.gk = a.gk AND p99.q = 0.99
    ORDER BY a.gk, a.run;

-- retries per group: retries_by(exp, grp, ...) splits each run's rows by
-- the value of grp, an expression over the columns of requests (rewind's
-- --by builds a struct of the fields, {'method': attrs ->> 'method'}); each
-- group, NULL included, is read as a log of its own, so an operation whose
-- attempts fall in two groups is two operations. Its first column is that
-- value, grp; the others are those of retries, ordered by grp, then run.
CREATE OR REPLACE MACRO retries(exp, affected_from_ms, affected_to_ms) AS TABLE
    SELECT * EXCLUDE (grp) FROM retries_by(exp, true, affected_from_ms, affected_to_ms)
    ORDER BY run;
