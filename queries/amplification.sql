-- amplification: how much retries multiply the calls a dependency sees.
--
-- Question: for each run, how many calls did the external requests cause,
-- how high did the calls per tick peak, how many requests were dropped, and
-- how many times the normal rate reached the dependency while it was faulty?
-- A request is an attempt-0 row; every row is a call; a row with a count
-- column stands for that many. A call failed when its outcome is not 'ok'
-- (NULL counts as neither); it was retried when `retried` says so or, where
-- `retried` is NULL, when a later attempt of the same req follows it.
-- Calls are put in ticks by floor(t_ms / tick). Each NULL parameter falls
-- back to the run's stored params (allowed, tick_ms, fault_from_ms,
-- fault_to_ms, normal_rate), then to the experiment's; a column whose
-- inputs are still unknown is NULL (a fault-free run has no window).
-- Rows come in log order: the order of each run's first call.
-- Parameters:
--   exp            VARCHAR  experiment
--   runs_glob      VARCHAR  only runs whose name matches this GLOB, or NULL for all
--   tick_ms        DOUBLE   tick length in ms, or NULL
--   fault_from_ms  DOUBLE   start of the fault window in ms (inclusive), or NULL
--   fault_to_ms    DOUBLE   end of the fault window in ms (exclusive), or NULL
--   normal_rate    DOUBLE   normal arrivals in calls per tick, or NULL
--   grp            ANY      amplification_by only, its second: the group, an expression
--                           over the columns of requests (docs/by.md)
-- Columns:
--   grp                    ANY      amplification_by only, first: the group's value
--   run                    VARCHAR  run name
--   allowed                BIGINT   calls a request may use (stored 'allowed'); NULL when unknown
--   requests               BIGINT   requests, first attempts
--   calls                  BIGINT   calls, all attempts
--   multiplier             DOUBLE   ratio, calls / requests
--   peak_calls_per_tick    BIGINT   calls, most in one tick
--   succeeded              BIGINT   calls answered ok
--   dropped                BIGINT   calls that failed and were not retried
--   window_calls_per_tick  DOUBLE   calls per tick sent in [fault_from_ms, fault_to_ms)
--   x_normal               DOUBLE   ratio, window_calls_per_tick / normal_rate
-- Units: amplification_by: grp=- run=- allowed=calls requests=requests calls=calls multiplier=x
-- Units: amplification_by: peak_calls_per_tick=- succeeded=calls dropped=calls
-- Units: amplification_by: window_calls_per_tick=calls/tick x_normal=x
-- Units: amplification: run=- allowed=calls requests=requests calls=calls multiplier=x
-- Units: amplification: peak_calls_per_tick=- succeeded=calls dropped=calls
-- Units: amplification: window_calls_per_tick=calls/tick x_normal=x

-- The parameters of each run after the fallbacks.
CREATE OR REPLACE MACRO _amplification_params(exp, runs_glob, tick_ms, fault_from_ms, fault_to_ms, normal_rate) AS TABLE
    SELECT r.run,
           (r.params ->> 'allowed')::BIGINT AS allowed,
           coalesce(tick_ms, (r.params ->> 'tick_ms')::DOUBLE, (e.params ->> 'tick_ms')::DOUBLE) AS tick,
           coalesce(fault_from_ms, (r.params ->> 'fault_from_ms')::DOUBLE, (e.params ->> 'fault_from_ms')::DOUBLE) AS from_ms,
           coalesce(fault_to_ms, (r.params ->> 'fault_to_ms')::DOUBLE, (e.params ->> 'fault_to_ms')::DOUBLE) AS to_ms,
           coalesce(normal_rate, (r.params ->> 'normal_rate')::DOUBLE, (e.params ->> 'normal_rate')::DOUBLE) AS normal
    FROM runs r LEFT JOIN experiments e ON e.experiment = r.experiment
    WHERE r.experiment = exp AND (runs_glob IS NULL OR r.run GLOB runs_glob);

-- The run's calls with their tick and whether they fall in the fault window.
-- When every run has the same tick and fault window (given, the
-- experiment's, or none), they are constants: the rows are not joined to
-- their run's parameters one by one (0.3 of 2.3 CPU seconds at 10 M rows),
-- and the rows of runs that are not asked for (or not in the runs table)
-- are dropped after grouping, where amplification joins the runs'
-- parameters. Otherwise each row is joined to its run's. Each branch reads
-- no rows when the other applies: its join's build side is empty.
CREATE OR REPLACE MACRO _amplification_calls(exp, grp, runs_glob, tick_ms, fault_from_ms, fault_to_ms, normal_rate) AS TABLE
    WITH p AS MATERIALIZED (SELECT * FROM _amplification_params(exp, runs_glob, tick_ms, fault_from_ms, fault_to_ms, normal_rate)),
    same AS (
        SELECT any_value(tick) AS tick, any_value(from_ms) AS from_ms, any_value(to_ms) AS to_ms
        FROM p
        HAVING count(DISTINCT {'tick': tick, 'from_ms': from_ms, 'to_ms': to_ms}) = 1
    )
    SELECT q.run, {'v': grp} AS gk, q.seq, q.attempt, q.t_ms, q.count, q.outcome,
           floor(q.t_ms / s.tick)::BIGINT AS tick_no,
           q.t_ms >= s.from_ms AND q.t_ms < s.to_ms AS in_fault
    FROM requests q, same s
    WHERE q.experiment = exp
    UNION ALL
    SELECT q.run, {'v': grp} AS gk, q.seq, q.attempt, q.t_ms, q.count, q.outcome,
           floor(q.t_ms / p.tick)::BIGINT AS tick_no,
           q.t_ms >= p.from_ms AND q.t_ms < p.to_ms AS in_fault
    FROM requests q
    JOIN (SELECT * FROM p WHERE NOT EXISTS (SELECT 1 FROM same)) p ON p.run = q.run
    WHERE q.experiment = exp;

-- Dropped calls per run: failed calls with retried false, and failed calls
-- with retried NULL that are the last attempt of their req. Only those
-- reqs' later attempts are looked up (a window numbering every req's
-- attempts sorted the whole log): an attempt after one numbered 0 or more
-- is numbered 1 or more, so only the retries are read for them (a join
-- probing every row cost 0.3 of 2.3 CPU seconds at 10 M rows). Negative
-- attempts (never from an ingest, which refuses them; rows inserted in SQL
-- may have them) are looked up among all rows: that join reads none when
-- there are none. NULL reqs are one req, as they are one partition of a
-- PARTITION BY.
CREATE OR REPLACE MACRO _amplification_dropped(exp, grp) AS TABLE
    WITH unsaid AS (
        SELECT run, {'v': grp} AS gk, req, attempt, count
        FROM requests
        WHERE experiment = exp AND outcome IS NOT NULL AND outcome <> 'ok' AND retried IS NULL
    ),
    later AS (
        SELECT q.run, u.gk, q.req, max(q.attempt) AS last_attempt
        FROM requests q JOIN (SELECT DISTINCT run, gk, req FROM unsaid) u
            ON u.run = q.run AND u.gk = {'v': grp} AND u.req IS NOT DISTINCT FROM q.req
        WHERE q.experiment = exp AND q.attempt > 0
        GROUP BY ALL
    ),
    later_neg AS (
        SELECT q.run, u.gk, q.req, max(q.attempt) AS last_attempt
        FROM requests q JOIN (SELECT DISTINCT run, gk, req FROM unsaid WHERE attempt < 0) u
            ON u.run = q.run AND u.gk = {'v': grp} AND u.req IS NOT DISTINCT FROM q.req
        WHERE q.experiment = exp
        GROUP BY ALL
    )
    SELECT run, gk, sum(count) AS dropped
    FROM (
        SELECT run, {'v': grp} AS gk, count FROM requests
        WHERE experiment = exp AND outcome IS NOT NULL AND outcome <> 'ok' AND NOT retried
        UNION ALL
        SELECT u.run, u.gk, u.count
        FROM unsaid u
        LEFT JOIN later l ON l.run = u.run AND l.gk = u.gk AND l.req IS NOT DISTINCT FROM u.req
        LEFT JOIN later_neg n ON n.run = u.run AND n.gk = u.gk AND n.req IS NOT DISTINCT FROM u.req
        -- a req in later_neg has its last attempt there, whatever the
        -- attempt of this row
        WHERE u.attempt >= coalesce(n.last_attempt, l.last_attempt, u.attempt)
    )
    GROUP BY run, gk;

-- The calls are grouped once, per (run, tick) (rows without t_ms in a tick
-- of their own, NULL); a run's totals are the sums of its ticks, its peak
-- the largest of the ticks with a t_ms. amplification_by does it per
-- group: grp is an expression over the columns of requests (rewind's --by
-- builds a struct of the fields, {'method': attrs ->> 'method'}), and each
-- run's rows with the same value of it, NULL included, are read as a log of
-- their own (a req's later attempts are those of its group); the run's
-- parameters apply to each of its groups. Its first column is that value,
-- grp; the others are those of amplification, ordered by grp, then as
-- amplification orders them.
-- The calls per (run, group, tick): the per-request part of
-- amplification_by with _amplification_dropped. Another engine computes
-- both (analyze/engine_amplification.go) and TEMP macros of the same names
-- read its rows, so amplification_by finishes the same way on both.
CREATE OR REPLACE MACRO _amplification_ticks(exp, grp, runs_glob, tick_ms, fault_from_ms, fault_to_ms, normal_rate) AS TABLE
    SELECT run, gk, tick_no,
           min(seq) AS first_seq,
           coalesce(sum(count) FILTER (WHERE attempt = 0), 0)::BIGINT AS requests,
           sum(count)::BIGINT AS calls,
           coalesce(sum(count) FILTER (WHERE outcome = 'ok'), 0)::BIGINT AS succeeded,
           coalesce(sum(count) FILTER (WHERE in_fault), 0)::BIGINT AS fault_calls
    FROM _amplification_calls(exp, grp, runs_glob, tick_ms, fault_from_ms, fault_to_ms, normal_rate)
    GROUP BY run, gk, tick_no;

CREATE OR REPLACE MACRO amplification_by(exp, grp, runs_glob := NULL, tick_ms := NULL, fault_from_ms := NULL,
                                         fault_to_ms := NULL, normal_rate := NULL) AS TABLE
    WITH ticks AS (
        SELECT * FROM _amplification_ticks(exp, grp, runs_glob, tick_ms, fault_from_ms, fault_to_ms, normal_rate)
    ),
    g AS (
        SELECT run, gk, min(first_seq) AS first_seq, sum(requests)::BIGINT AS requests,
               sum(calls)::BIGINT AS calls, sum(succeeded)::BIGINT AS succeeded, sum(fault_calls) AS fault_calls,
               max(calls) FILTER (WHERE tick_no IS NOT NULL)::BIGINT AS peak
        FROM ticks GROUP BY run, gk
    ),
    totals AS (
        SELECT g.run, g.gk, g.first_seq, g.requests, g.calls, g.succeeded,
               coalesce(d.dropped, 0)::BIGINT AS dropped, g.fault_calls, g.peak
        FROM g LEFT JOIN _amplification_dropped(exp, grp) d ON d.run = g.run AND d.gk = g.gk
    ),
    rated AS (
        SELECT t.*, p.allowed, p.normal,
               CASE WHEN p.to_ms <= p.from_ms
                    THEN error('amplification: run ' || t.run || ': fault window ends before it starts')
                    ELSE t.fault_calls / ((p.to_ms - p.from_ms) / p.tick) END AS window_rate
        FROM totals t JOIN _amplification_params(exp, runs_glob, tick_ms, fault_from_ms, fault_to_ms, normal_rate) p
            ON p.run = t.run
    )
    SELECT r.gk.v AS grp, r.run, r.allowed, r.requests, r.calls,
           r.calls / nullif(r.requests, 0)::DOUBLE AS multiplier,
           r.peak AS peak_calls_per_tick,
           r.succeeded, r.dropped,
           r.window_rate::DOUBLE AS window_calls_per_tick,
           (r.window_rate / r.normal)::DOUBLE AS x_normal
    FROM rated r
    ORDER BY r.gk, r.first_seq, r.run;

CREATE OR REPLACE MACRO amplification(exp, runs_glob := NULL, tick_ms := NULL, fault_from_ms := NULL,
                                      fault_to_ms := NULL, normal_rate := NULL) AS TABLE
    SELECT * EXCLUDE (grp)
    FROM amplification_by(exp, true, runs_glob := runs_glob, tick_ms := tick_ms, fault_from_ms := fault_from_ms,
                          fault_to_ms := fault_to_ms, normal_rate := normal_rate);
