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
-- is the exact difference of the logged times, rounded once to DOUBLE.
-- Parameters:
--   exp               VARCHAR  experiment
--   affected_from_ms  DOUBLE   ms, start of the affected interval (inclusive)
--   affected_to_ms    DOUBLE   ms, end of the affected interval (exclusive)
-- Columns:
--   run               VARCHAR  run (the strategy)
--   requests          BIGINT   requests, attempts sent (first attempts and retries)
--   first_attempts    BIGINT   requests, attempts with attempt = 0
--   retries           BIGINT   requests, attempts with attempt > 0
--   budget_denied     BIGINT   requests, failed attempts not retried because of the budget (drop_reason = 'budget')
--   affected_ops      BIGINT   operations whose first send is in [affected_from_ms, affected_to_ms)
--   affected_success  DOUBLE   share (0-1) of affected_ops with an ok attempt; NULL when there are none
--   p95_ms            DOUBLE   ms, 95th percentile of operation latency over all operations (quantile_cont)
--   p99_ms            DOUBLE   ms, 99th percentile of operation latency over all operations (quantile_cont)
-- Most operations are one row (a first attempt never retried), and grouping
-- every row by its operation means a hash table as large as the log. So
-- only the rows of reqs that may have several rows are grouped: reqs with a
-- row whose attempt is not 0, reqs in a block of 64 req values whose first
-- attempts hold some req twice (more rows than distinct bits: rare, and a
-- false alarm only sends a block through the grouping), and rows without a
-- req. Every other row is an operation by itself, whose latency is the
-- same difference over one row: (t + latency) - t in DECIMAL is latency.
CREATE OR REPLACE MACRO _retry_ops(exp) AS TABLE
    WITH twice AS (
        SELECT run, req >> 6 AS b
        FROM requests
        WHERE experiment = exp AND attempt = 0 AND req IS NOT NULL
        GROUP BY ALL
        HAVING count(*) > bit_count(bit_or(1::UBIGINT << (req & 63)::UBIGINT))
    ),
    multi AS (
        SELECT run, req FROM requests
        WHERE experiment = exp AND req IS NOT NULL AND attempt <> 0
        UNION
        SELECT r.run, r.req FROM requests r JOIN twice t ON t.run = r.run AND t.b = r.req >> 6
        WHERE r.experiment = exp AND r.attempt = 0
    ),
    grouped AS (
        SELECT run, req, req_text, seq, t_ms, latency_ms, outcome
        FROM requests r SEMI JOIN multi m USING (run, req)
        WHERE r.experiment = exp
        UNION ALL
        SELECT run, req, req_text, seq, t_ms, latency_ms, outcome
        FROM requests
        WHERE experiment = exp AND req IS NULL
    )
    SELECT run,
           min(t_ms) AS start_ms,
           (max(t_ms::DECIMAL(18,6) + latency_ms::DECIMAL(18,6)) - min(t_ms::DECIMAL(18,6)))::DOUBLE AS op_ms,
           bool_or(outcome = 'ok') AS ok
    FROM grouped
    -- the operation: req, else req_text, else the row itself
    GROUP BY run, req, CASE WHEN req IS NULL THEN req_text END, CASE WHEN req IS NULL AND req_text IS NULL THEN seq END
    UNION ALL
    SELECT run, t_ms, CASE WHEN t_ms IS NOT NULL THEN latency_ms::DECIMAL(18,6)::DOUBLE END, outcome = 'ok'
    FROM requests r ANTI JOIN multi m USING (run, req)
    WHERE r.experiment = exp AND r.attempt = 0 AND r.req IS NOT NULL;

CREATE OR REPLACE MACRO _retry_attempts(exp) AS TABLE
    SELECT run,
           sum(count)::BIGINT AS requests,
           coalesce(sum(count) FILTER (WHERE attempt = 0), 0)::BIGINT AS first_attempts,
           coalesce(sum(count) FILTER (WHERE attempt > 0), 0)::BIGINT AS retries,
           coalesce(sum(count) FILTER (WHERE drop_reason = 'budget'), 0)::BIGINT AS budget_denied
    FROM requests
    WHERE experiment = exp
    GROUP BY run;

CREATE OR REPLACE MACRO retries(exp, affected_from_ms, affected_to_ms) AS TABLE
    WITH ops AS (
        SELECT run,
               count(*) FILTER (WHERE start_ms >= affected_from_ms AND start_ms < affected_to_ms) AS affected_ops,
               count(*) FILTER (WHERE start_ms >= affected_from_ms AND start_ms < affected_to_ms AND ok) AS affected_ok,
               quantile_cont(op_ms, [0.95, 0.99]) AS p  -- one pass over the latencies for both
        FROM _retry_ops(exp)
        GROUP BY run
    )
    SELECT a.run, a.requests, a.first_attempts, a.retries, a.budget_denied,
           o.affected_ops::BIGINT AS affected_ops,
           CASE WHEN o.affected_ops > 0 THEN o.affected_ok / o.affected_ops END AS affected_success,
           o.p[1] AS p95_ms, o.p[2] AS p99_ms
    FROM _retry_attempts(exp) a JOIN ops o USING (run)
    ORDER BY a.run;
