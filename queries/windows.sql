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

-- A role's rows with their position: 0-based, in (run, seq) order. This is
-- the definition of request order; the macros below compute the same
-- positions without numbering every row where they can.
CREATE OR REPLACE MACRO _role_rows(exp, role_name) AS TABLE
    SELECT *, row_number() OVER (ORDER BY run, seq) - 1 AS pos
    FROM requests
    WHERE experiment = exp AND role = role_name;

-- The shape of a role's rows: how many runs, and whether a single run's
-- seqs are contiguous (no other row in between: a run logged on its own).
CREATE OR REPLACE MACRO _role_shape(exp, role_name) AS TABLE
    SELECT count(DISTINCT run) AS runs, min(seq) AS first_seq,
           count(DISTINCT run) = 1 AND max(seq) - min(seq) + 1 = count(*) AS contiguous
    FROM requests
    WHERE experiment = exp AND role = role_name;

-- A role's rows with what the window counts need, as fixed-width columns:
-- sorting carries them, and a text column costs a sort more than the key.
CREATE OR REPLACE MACRO _window_input(exp, role_name) AS TABLE
    SELECT run, seq, t_ms, count, outcome = 'ok' AS ok, tagged AND outcome <> 'ok' AS damaged
    FROM requests
    WHERE experiment = exp AND role = role_name;

-- Each row's window, 0-based, with what the counts need. Exactly one branch
-- gets rows: numbering rows means sorting them, so a contiguous run takes
-- its position from seq alone, a single run sorts by the integer seq, and
-- only a role of several runs sorts by (run, seq). Duration windows need no
-- position. The branches name their columns: DuckDB does not prune columns
-- through UNION ALL.
CREATE OR REPLACE MACRO _window_rows(exp, role_name, size_n, size_ms) AS TABLE
    WITH shape AS (SELECT * FROM _role_shape(exp, role_name))
    SELECT CASE WHEN size_n IS NOT NULL THEN (seq - (SELECT first_seq FROM shape)) // size_n
                ELSE error('windows: give size_n (requests) or size_ms (milliseconds)') END AS w,
           t_ms, count, ok, damaged
    FROM _window_input(exp, role_name)
    WHERE size_ms IS NULL AND (SELECT contiguous FROM shape)
    UNION ALL
    SELECT CASE WHEN size_n IS NOT NULL THEN (row_number() OVER (ORDER BY seq) - 1) // size_n
                ELSE error('windows: give size_n (requests) or size_ms (milliseconds)') END,
           t_ms, count, ok, damaged
    FROM _window_input(exp, role_name)
    WHERE size_ms IS NULL AND (SELECT runs = 1 AND NOT contiguous FROM shape)
    UNION ALL
    SELECT CASE WHEN size_n IS NOT NULL THEN (row_number() OVER (ORDER BY run, seq) - 1) // size_n
                ELSE error('windows: give size_n (requests) or size_ms (milliseconds)') END,
           t_ms, count, ok, damaged
    FROM _window_input(exp, role_name)
    WHERE size_ms IS NULL AND (SELECT runs > 1 FROM shape)
    UNION ALL
    SELECT floor(t_ms / size_ms)::BIGINT, t_ms, count, ok, damaged
    FROM _window_input(exp, role_name)
    WHERE size_ms IS NOT NULL AND t_ms IS NOT NULL;

CREATE OR REPLACE MACRO windows(exp, role_name, size_n := NULL, size_ms := NULL) AS TABLE
    SELECT
        w + 1 AS window_no,
        min(t_ms) AS first_t_ms,
        max(t_ms) AS last_t_ms,
        sum(count)::BIGINT AS requests,
        coalesce(sum(count) FILTER (WHERE ok), 0)::BIGINT AS ok,
        coalesce(sum(count) FILTER (WHERE damaged), 0)::BIGINT AS damage
    FROM _window_rows(exp, role_name, size_n, size_ms)
    GROUP BY ALL
    ORDER BY window_no;
