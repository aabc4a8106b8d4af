-- probes: what each health-probe setting did to a replica set.
--
-- Question: for every setting (run) of a probes experiment, how many
-- restarts did the probes make, how many of them hit a replica that was not
-- stuck or was still starting, which replicas ended up in a restart loop,
-- how many requests failed, how many replicas were healthy per round on
-- average, and how long did stuck replicas go unnoticed?
-- Reads the events table: restart events (state = true state at the
-- restart; attrs reason liveness|startup|planned, round, stuck_since_round)
-- and state events (one per replica and round); and the requests table
-- (attrs replica_state = true state of the replica the request went to).
-- Planned restarts are not the probes' doing and count nowhere. The number
-- of rounds is the experiment's param rounds. Settings come in the order
-- they appear in the log.
-- Parameters:
--   exp  VARCHAR  experiment
-- Columns:
--   setting                VARCHAR   run name
--   restarts               BIGINT    restarts by the liveness or startup probe
--   unnecessary_restarts   BIGINT    of those, restarts of a replica that was not stuck
--   killed_during_startup  BIGINT    of those, restarts of a replica still starting
--   in_restart_loop        BIGINT    replicas, restarted by a probe 3 times or more
--   early_errors           BIGINT    requests sent to a starting replica
--   errors                 BIGINT    requests answered with outcome error
--   in_service             DOUBLE    replicas, healthy replica-rounds / rounds (exact ratio)
--   detection_rounds       BIGINT[]  rounds, round - stuck_since_round of each liveness
--                                    restart of a stuck replica, by round then replica
-- Units: probes: setting=- restarts=- unnecessary_restarts=- killed_during_startup=-
-- Units: probes: in_restart_loop=replicas early_errors=requests errors=requests in_service=replicas
-- Units: probes: detection_rounds=rounds
CREATE OR REPLACE MACRO _probe_restarts(exp) AS TABLE
    SELECT run, subject, state,
           attrs->>'reason' AS reason,
           (attrs->>'round')::BIGINT AS round,
           (attrs->>'stuck_since_round')::BIGINT AS stuck_since_round
    FROM events
    WHERE experiment = exp AND type = 'restart';

CREATE OR REPLACE MACRO probes(exp) AS TABLE
    WITH rst AS (SELECT * FROM _probe_restarts(exp) WHERE reason <> 'planned'),
    settings AS (
        SELECT run FROM runs WHERE experiment = exp
        UNION SELECT DISTINCT run FROM events WHERE experiment = exp
    ),
    req AS (
        SELECT run, min(seq) AS first_seq,
               coalesce(sum(count) FILTER (WHERE attrs->>'replica_state' = 'starting'), 0)::BIGINT AS early_errors,
               coalesce(sum(count) FILTER (WHERE outcome = 'error'), 0)::BIGINT AS errors
        FROM requests WHERE experiment = exp
        GROUP BY run
    ),
    ev AS (
        SELECT run, min(seq) AS first_seq,
               count(*) FILTER (WHERE type = 'state' AND state = 'healthy') AS healthy_replica_rounds
        FROM events WHERE experiment = exp
        GROUP BY run
    ),
    restarts AS (
        SELECT run, count(*) AS restarts,
               count(*) FILTER (WHERE state <> 'stuck') AS unnecessary_restarts,
               count(*) FILTER (WHERE state = 'starting') AS killed_during_startup
        FROM rst GROUP BY run
    ),
    loops AS (
        SELECT run, count(*) AS in_restart_loop
        FROM (SELECT run, subject FROM rst GROUP BY run, subject HAVING count(*) >= 3)
        GROUP BY run
    ),
    detections AS (
        SELECT run, list(round - stuck_since_round ORDER BY round, TRY_CAST(subject AS BIGINT), subject) AS detection_rounds
        FROM _probe_restarts(exp)
        WHERE reason = 'liveness' AND state = 'stuck'
        GROUP BY run
    ),
    rounds AS (SELECT (params->>'rounds')::BIGINT AS n FROM experiments WHERE experiment = exp)
    SELECT s.run AS setting,
           coalesce(r.restarts, 0) AS restarts,
           coalesce(r.unnecessary_restarts, 0) AS unnecessary_restarts,
           coalesce(r.killed_during_startup, 0) AS killed_during_startup,
           coalesce(l.in_restart_loop, 0) AS in_restart_loop,
           coalesce(q.early_errors, 0) AS early_errors,
           coalesce(q.errors, 0) AS errors,
           coalesce(ev.healthy_replica_rounds, 0)::DOUBLE / nullif(rounds.n, 0) AS in_service,
           coalesce(d.detection_rounds, []::BIGINT[]) AS detection_rounds
    FROM settings s
    LEFT JOIN rounds ON true
    LEFT JOIN req q USING (run)
    LEFT JOIN ev USING (run)
    LEFT JOIN restarts r USING (run)
    LEFT JOIN loops l USING (run)
    LEFT JOIN detections d USING (run)
    -- requests and events number their rows separately; each in file order
    ORDER BY q.first_seq NULLS LAST, ev.first_seq NULLS LAST, setting;
