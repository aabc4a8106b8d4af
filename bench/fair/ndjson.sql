-- The fair anchor for NDJSON ingest (issue 38 §2): DuckDB's own read_json
-- loading bench/genlog's chaos-shaped log (control.ndjson, loaded by rewind
-- as `rewind ingest --experiment bench`) into the same requests table, with
-- what rewind computes as the rows stream in: the file's line numbers
-- (row_number() OVER () with preserve_insertion_order on, so the numbers
-- follow the file), seq in file order, each run's positions (run_pos), the
-- roles, and the runs and experiment rows. What it leaves out: validation
-- with file:line:field errors, unknown fields kept in attrs, the input's
-- hash, the time resolution, the outcome check and the run gaps.
-- bench/fair.sh replaces @FILE@ and checks that the rows equal rewind's.
SET preserve_insertion_order = true;
INSERT INTO requests
WITH l AS (
	SELECT *, row_number() OVER () AS line
	FROM read_json('@FILE@', format = 'newline_delimited'))
SELECT 'bench', run, CASE WHEN run IN ('control', 'experiment') THEN run ELSE '' END, line, req, NULL,
	coalesce(attempt, 0), t_ms, NULL, latency_ms, outcome, NULL, coalesce(tagged, false),
	NULL, NULL, NULL, NULL, NULL, 1, NULL, 1, line,
	row_number() OVER (PARTITION BY run ORDER BY line) - 1
FROM l WHERE run IS NOT NULL;
INSERT INTO experiments VALUES ('bench', NULL);
INSERT INTO runs SELECT DISTINCT experiment, run, role, NULL FROM requests;
