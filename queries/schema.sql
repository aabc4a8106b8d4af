-- rewind's tables: requests, events, runs, experiments and files (the
-- README's schema section describes every column). Idempotent: store applies
-- it on every writable open, before the SQL library.
CREATE TABLE IF NOT EXISTS files (
	file_id     INTEGER PRIMARY KEY,
	path        VARCHAR NOT NULL,
	sha256      VARCHAR NOT NULL,
	named_as    VARCHAR NOT NULL, -- the --experiment given, '' for none: part of what makes an ingest a repeat
	format      VARCHAR NOT NULL,
	experiment  VARCHAR NOT NULL,
	rows        BIGINT NOT NULL,
	ingested_at TIMESTAMP NOT NULL,
	UNIQUE (sha256, named_as)
);
ALTER TABLE files ADD COLUMN IF NOT EXISTS bytes BIGINT;            -- raw size read
ALTER TABLE files ADD COLUMN IF NOT EXISTS abs_path VARCHAR;        -- NULL for standard input
ALTER TABLE files ADD COLUMN IF NOT EXISTS compression VARCHAR;     -- '', gzip or zstd
ALTER TABLE files ADD COLUMN IF NOT EXISTS resolution_ms DOUBLE;    -- finest time step of the file's times
ALTER TABLE files ADD COLUMN IF NOT EXISTS t_origin TIMESTAMP;      -- the ts that t_ms 0 stands for, when t_ms came from ts
CREATE TABLE IF NOT EXISTS experiments (
	experiment VARCHAR PRIMARY KEY,
	params     JSON
);
CREATE TABLE IF NOT EXISTS runs (
	experiment VARCHAR NOT NULL,
	run        VARCHAR NOT NULL,
	role       VARCHAR NOT NULL,
	params     JSON,
	PRIMARY KEY (experiment, run)
);
CREATE TABLE IF NOT EXISTS requests (
	experiment  VARCHAR NOT NULL,
	run         VARCHAR NOT NULL,
	role        VARCHAR NOT NULL,
	seq         BIGINT NOT NULL,
	req         BIGINT,
	req_text    VARCHAR,
	attempt     INTEGER NOT NULL,
	t_ms        DOUBLE,
	ts          TIMESTAMP,
	latency_ms  DOUBLE,
	outcome     VARCHAR,
	status      INTEGER,
	tagged      BOOLEAN NOT NULL,
	user_id     VARCHAR,
	batch_id    VARCHAR,
	client_id   VARCHAR,
	retried     BOOLEAN,
	drop_reason VARCHAR,
	count       BIGINT NOT NULL,
	attrs       JSON,
	file_id     INTEGER NOT NULL,
	line        BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
	experiment VARCHAR NOT NULL,
	run        VARCHAR NOT NULL,
	seq        BIGINT NOT NULL,
	type       VARCHAR NOT NULL,
	t_ms       DOUBLE,
	subject    VARCHAR,
	state      VARCHAR,
	attrs      JSON,
	file_id    INTEGER NOT NULL,
	line       BIGINT NOT NULL
);
ALTER TABLE events ADD COLUMN IF NOT EXISTS ts TIMESTAMP;
ALTER TABLE requests ADD COLUMN IF NOT EXISTS run_pos BIGINT; -- 0-based position among its (experiment, run)'s rows in seq order (runpos.go)
-- Each run's median gap between consecutive req's sends, inferred at ingest so that
-- analyze omission reads it instead of sorting the run (queries/omission.sql, _om_runs).
CREATE TABLE IF NOT EXISTS run_gaps (
	experiment VARCHAR NOT NULL,
	run        VARCHAR NOT NULL,
	gap_us     BIGINT,           -- us; NULL: no two consecutive req
	rows       BIGINT NOT NULL,  -- the rows with t_ms and req it was inferred from
	check_sum  HUGEINT NOT NULL, -- sum of hash(req, start in us) over them: a mismatch infers again
	PRIMARY KEY (experiment, run)
);
