-- blast_radius: the planned blast radius against the measured one.
--
-- Question: the plan tagged some users; how many requests did the
-- experiment actually reach, and how much wider is that than the plan?
-- Batching, queueing and caching widen it: one tagged user in a batch puts
-- the whole batch into the experiment. experiment_window(exp, start_at)
-- gives the experiment run's requests from position start_at on (0-based,
-- in request order); count the plan over it, e.g.
--   (SELECT count(*) FROM experiment_window('gunluk', 200) WHERE tag_hash(20260731, req) < 0.05)
-- Uses: windows
-- Parameters:
--   exp       VARCHAR  experiment
--   start_at  BIGINT   position in the experiment run where the experiment starts
--   planned   BIGINT   requests the plan tags in that window
-- Columns:
--   planned          BIGINT  requests, planned to be tagged
--   measured         BIGINT  requests, tagged in the experiment window
--   window_requests  BIGINT  requests in the experiment window
--   multiplier       DOUBLE  ratio, measured / planned (NULL when planned is 0)
--   damaged          BIGINT  requests in the experiment window not answered ok
--   control_damaged  BIGINT  requests in the control run not answered ok
--   control_requests BIGINT  requests in the control run
-- Units: blast_radius: planned=requests measured=requests window_requests=requests multiplier=x
-- Units: blast_radius: damaged=requests control_damaged=requests control_requests=requests
CREATE OR REPLACE MACRO blast_radius(exp, start_at, planned) AS TABLE
    WITH w AS (
        SELECT coalesce(sum(count) FILTER (WHERE tagged), 0)::BIGINT AS measured,
               coalesce(sum(count), 0)::BIGINT AS window_requests,
               coalesce(sum(count) FILTER (WHERE outcome <> 'ok'), 0)::BIGINT AS damaged
        FROM _experiment_rows(exp, start_at)
    ),
    c AS (
        SELECT coalesce(sum(count) FILTER (WHERE outcome <> 'ok'), 0)::BIGINT AS control_damaged,
               coalesce(sum(count), 0)::BIGINT AS control_requests
        FROM requests
        WHERE experiment = exp AND role = 'control'
    )
    SELECT planned::BIGINT AS planned, w.measured, w.window_requests,
           w.measured / nullif(planned, 0)::DOUBLE AS multiplier,
           w.damaged, c.control_damaged, c.control_requests
    FROM w, c;  -- one row: nothing to order
