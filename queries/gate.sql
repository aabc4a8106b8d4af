-- gate: the measurements a canary gate controller takes, window by window.
--
-- Question: over each window [from_ms, until_ms) of test time, how many
-- requests were there, how many were answered ok, and what were their
-- latencies? `rewind analyze gate` replays an Argo Rollouts AnalysisTemplate,
-- a Flagger Canary or a Keptn slo.yaml over these (the controllers' state
-- machines are Go: analyze/gate*.go). Windows may overlap (an Argo metric
-- measured every 1m over the last 5m). Rows without t_ms are skipped. A row
-- with a count column stands for that many requests, in the quantiles too.
-- Quantiles are the nearest rank: the ceil(q n)-th smallest of n latencies,
-- read rounded to the microsecond, as everywhere in rewind; every column is
-- an integer, so a threshold is decided exactly in Go.
-- Parameters:
--   exp        VARCHAR   experiment
--   role_name  VARCHAR   the rows of this role, or NULL for every row
--   from_ms    DOUBLE[]  each window's start, ms of test time (inclusive)
--   until_ms   DOUBLE[]  each window's end, ms (exclusive); same length
-- Columns:
--   window      BIGINT  1-based position of the window in the lists
--   requests    BIGINT  requests in the window
--   ok          BIGINT  requests answered ok
--   lat_n       BIGINT  requests with a latency
--   lat_sum_us  HUGEINT µs, sum of their latencies
--   p50_us p90_us p95_us p99_us p999_us max_us  BIGINT  µs, nearest-rank quantiles (NULL without latencies)
-- Units: gate: window=- requests=requests ok=requests lat_n=requests lat_sum_us=us p50_us=us
-- Units: gate: p90_us=us p95_us=us p99_us=us p999_us=us max_us=us
CREATE OR REPLACE MACRO _gate_windows(from_ms, until_ms) AS TABLE
    SELECT generate_subscripts(from_ms, 1) AS w, unnest(from_ms) AS f, unnest(until_ms) AS u;

-- The grid: the greatest common divisor of every window edge, in µs (0
-- when an edge is not a whole µs, or every edge is 0), and how many
-- (window, grid cell) pairs the windows make.
CREATE OR REPLACE MACRO _gate_grid(from_ms, until_ms) AS TABLE
    WITH e AS (SELECT unnest(from_ms || until_ms) AS x),
    g AS (
        SELECT CASE WHEN bool_and(x * 1000 = round(x * 1000))
                    THEN list_reduce(list(abs(round(x * 1000)::BIGINT)), (a, b) -> gcd(a, b)) ELSE 0 END AS g_us
        FROM e
    )
    SELECT g_us, CASE WHEN g_us > 0 THEN (SELECT sum((round(u * 1000)::BIGINT - round(f * 1000)::BIGINT) // g_us)
                                          FROM _gate_windows(from_ms, until_ms) WHERE u > f) END AS cells
    FROM g;

-- Counts per (window, latency). When the windows' edges fall on a grid of
-- few cells (any schedule of whole seconds), each row is counted once in
-- its cell, and the cells are summed into the windows through a (window,
-- cell) map: an equi-join, so overlapping windows cost little. The cell is
-- floor(t_ms / grid), corrected by comparing t_ms with the cell's edges, so
-- a row on an edge lands where t_ms >= from_ms puts it. Otherwise (edges
-- off the µs, or more than 4 M cells) a range join puts each row in every
-- window that holds it.
CREATE OR REPLACE MACRO _gate_hist(exp, role_name, from_ms, until_ms) AS TABLE
    WITH grid AS MATERIALIZED (SELECT g_us, g_us > 0 AND cells <= 4000000 AS use_grid FROM _gate_grid(from_ms, until_ms)),
    r AS (
        SELECT t_ms, count, outcome = 'ok' AS ok, round(latency_ms * 1000)::BIGINT AS lat_us
        FROM requests
        WHERE experiment = exp AND (role_name IS NULL OR role = role_name) AND t_ms IS NOT NULL
    ),
    cell AS (
        SELECT b - (t_ms < b * g / 1000.0)::BIGINT + (t_ms >= (b + 1) * g / 1000.0)::BIGINT AS b, count, ok, lat_us
        FROM (SELECT floor(r.t_ms * 1000 / grid.g_us)::BIGINT AS b, grid.g_us AS g, r.* FROM r, grid
              WHERE grid.use_grid)
    ),
    per_cell AS (
        SELECT b, lat_us, sum(count) AS c, coalesce(sum(count) FILTER (WHERE ok), 0) AS c_ok FROM cell GROUP BY ALL
    ),
    map AS (
        SELECT w, unnest(range(round(f * 1000)::BIGINT // g, round(u * 1000)::BIGINT // g)) AS b
        FROM _gate_windows(from_ms, until_ms), (SELECT g_us AS g FROM grid WHERE use_grid)
        WHERE u > f
    )
    SELECT map.w, p.lat_us, sum(p.c) AS c, sum(p.c_ok) AS c_ok
    FROM per_cell p JOIN map ON map.b = p.b
    GROUP BY ALL
    UNION ALL
    SELECT w.w, r.lat_us, sum(r.count), coalesce(sum(r.count) FILTER (WHERE r.ok), 0)
    FROM r JOIN _gate_windows(from_ms, until_ms) w ON r.t_ms >= w.f AND r.t_ms < w.u
    WHERE NOT (SELECT use_grid FROM grid)
    GROUP BY ALL;

CREATE OR REPLACE MACRO gate(exp, role_name, from_ms, until_ms) AS TABLE
    WITH h AS MATERIALIZED (SELECT * FROM _gate_hist(exp, role_name, from_ms, until_ms)),
    g AS (
        SELECT w, sum(c)::BIGINT AS requests, sum(c_ok)::BIGINT AS ok,
               coalesce(sum(c) FILTER (WHERE lat_us IS NOT NULL), 0)::BIGINT AS lat_n,
               sum(lat_us::HUGEINT * c) AS lat_sum_us
        FROM h GROUP BY w
    ),
    run AS (
        SELECT w, lat_us, sum(c) OVER (PARTITION BY w ORDER BY lat_us ROWS UNBOUNDED PRECEDING) AS cum
        FROM h WHERE lat_us IS NOT NULL
    ),
    q AS (
        SELECT r.w,
               min(r.lat_us) FILTER (WHERE r.cum >= greatest(1, ceil(0.5::DECIMAL(4, 3) * g.lat_n))) AS p50_us,
               min(r.lat_us) FILTER (WHERE r.cum >= greatest(1, ceil(0.9::DECIMAL(4, 3) * g.lat_n))) AS p90_us,
               min(r.lat_us) FILTER (WHERE r.cum >= greatest(1, ceil(0.95::DECIMAL(4, 3) * g.lat_n))) AS p95_us,
               min(r.lat_us) FILTER (WHERE r.cum >= greatest(1, ceil(0.99::DECIMAL(4, 3) * g.lat_n))) AS p99_us,
               min(r.lat_us) FILTER (WHERE r.cum >= greatest(1, ceil(0.999::DECIMAL(4, 3) * g.lat_n))) AS p999_us,
               max(r.lat_us) AS max_us
        FROM run r JOIN g ON g.w = r.w
        GROUP BY r.w
    )
    SELECT w.w AS "window", coalesce(g.requests, 0) AS requests, coalesce(g.ok, 0) AS ok,
           coalesce(g.lat_n, 0) AS lat_n, g.lat_sum_us,
           q.p50_us, q.p90_us, q.p95_us, q.p99_us, q.p999_us, q.max_us
    FROM _gate_windows(from_ms, until_ms) w
    LEFT JOIN g ON g.w = w.w
    LEFT JOIN q ON q.w = w.w
    ORDER BY "window";

-- The requests before a moment, and those not answered ok: what a gate's
-- decision at until_ms came too late for.
CREATE OR REPLACE MACRO _gate_hurt(exp, role_name, until_ms) AS TABLE
    SELECT coalesce(sum(count), 0)::BIGINT AS requests,
           coalesce(sum(count) FILTER (WHERE outcome IS DISTINCT FROM 'ok'), 0)::BIGINT AS not_ok
    FROM requests
    WHERE experiment = exp AND (role_name IS NULL OR role = role_name) AND t_ms < until_ms;
