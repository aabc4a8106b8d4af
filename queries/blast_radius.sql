-- blast_radius: the planned blast radius against the measured one.
--
-- Question: the plan tagged some users; how many requests did the
-- experiment actually reach, and how much wider is that than the plan?
-- Batching, queueing and caching widen it: one tagged user in a batch puts
-- the whole batch into the experiment. experiment_window(exp, start_at)
-- gives the experiment run's requests from position start_at on (0-based,
-- in request order); count the plan over it, e.g.
--   (SELECT count(*) FROM experiment_window('gunluk', 200) WHERE tag_hash(20260731, req) < 0.05)
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
-- The first position at or after start_at (NULL for NULL, as pos >= NULL).
CREATE OR REPLACE MACRO _first_pos(start_at) AS
    CASE WHEN start_at IS NOT NULL THEN greatest(ceil(start_at), 0)::BIGINT END;

-- The experiment run's rows from position start_at on, without their
-- position: the row at position k = _first_pos(start_at) and every row after
-- it in (run, seq) order. That row is found without numbering every row
-- (which means sorting them): count the rows of each block of 65536 seqs,
-- find the block that holds position k, and number that block's rows alone
-- (read as a range of seq, which DuckDB's join filter turns into a range
-- scan of that block: seq // 65536 = b read every row).
-- No CTE is read twice: DuckDB materializes such a CTE, and a query with a
-- materialized CTE reads every column of the table, needed or not.
CREATE OR REPLACE MACRO _experiment_rows(exp, start_at) AS TABLE
    WITH blocks AS (
        SELECT run, seq // 65536 AS b, count(*) AS n
        FROM requests
        WHERE experiment = exp AND role = 'experiment'
        GROUP BY ALL
    ),
    hit AS (
        SELECT run, b, before
        FROM (SELECT run, b, n, sum(n) OVER (ORDER BY run, b ROWS UNBOUNDED PRECEDING) - n AS before FROM blocks)
        WHERE before <= _first_pos(start_at) AND _first_pos(start_at) < before + n
    ),
    first AS (
        SELECT r.run, r.seq
        FROM requests r, hit
        WHERE r.experiment = exp AND r.role = 'experiment' AND r.run = hit.run
          AND r.seq >= hit.b * 65536 AND r.seq < hit.b * 65536 + 65536
        QUALIFY hit.before + row_number() OVER (ORDER BY r.seq) - 1 = _first_pos(start_at)
    )
    SELECT r.*
    FROM requests r, first f
    WHERE r.experiment = exp AND r.role = 'experiment' AND (r.run > f.run OR (r.run = f.run AND r.seq >= f.seq));

-- The same rows with their position (0-based, in request order). Numbering
-- them sorts the rows; blast_radius itself needs no position.
CREATE OR REPLACE MACRO experiment_window(exp, start_at) AS TABLE
    SELECT *, _first_pos(start_at) + row_number() OVER (ORDER BY run, seq) - 1 AS pos
    FROM _experiment_rows(exp, start_at);

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
