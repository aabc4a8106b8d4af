-- windows: per-window counts of one role's run in an experiment.
--
-- Question: how many requests fell in each window, how many were answered
-- ok, and how many tagged requests were damaged? The steady-state
-- hypothesis, falsification, stop-damage and replay all start here.
-- Count windows (size_n) follow request order (seq); duration windows
-- (size_ms) follow t_ms, aligned at 0, and skip rows without t_ms. A row
-- with a count column stands for that many requests. Windows without any
-- request do not appear.
-- Parameters:
--   exp        VARCHAR  experiment
--   role_name  VARCHAR  'control' or 'experiment'
--   size_n     BIGINT   requests per window (count windows), or NULL
--   size_ms    DOUBLE   window length in ms (duration windows), or NULL
-- Columns:
--   window      BIGINT  1-based window number
--   first_t_ms  DOUBLE  ms, earliest t_ms in the window (NULL without t_ms)
--   last_t_ms   DOUBLE  ms, latest t_ms in the window (NULL without t_ms)
--   requests    BIGINT  requests in the window
--   ok          BIGINT  requests answered ok
--   damage      BIGINT  tagged requests not answered ok
CREATE OR REPLACE MACRO _role_rows(exp, role_name) AS TABLE
    SELECT *, row_number() OVER (ORDER BY run, seq) - 1 AS pos
    FROM requests
    WHERE experiment = exp AND role = role_name;

CREATE OR REPLACE MACRO windows(exp, role_name, size_n := NULL, size_ms := NULL) AS TABLE
    SELECT
        CASE
            WHEN size_ms IS NOT NULL THEN floor(t_ms / size_ms)::BIGINT
            WHEN size_n IS NOT NULL THEN pos // size_n
            ELSE error('windows: give size_n (requests) or size_ms (milliseconds)')
        END + 1 AS window_no,
        min(t_ms) AS first_t_ms,
        max(t_ms) AS last_t_ms,
        sum(count)::BIGINT AS requests,
        coalesce(sum(count) FILTER (WHERE outcome = 'ok'), 0)::BIGINT AS ok,
        coalesce(sum(count) FILTER (WHERE tagged AND outcome <> 'ok'), 0)::BIGINT AS damage
    FROM _role_rows(exp, role_name)
    WHERE size_ms IS NULL OR t_ms IS NOT NULL
    GROUP BY ALL
    ORDER BY window_no;
