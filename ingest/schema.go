// Package ingest loads request logs into rewind's DuckDB file.
//
// Every supported format (the chaos seed's gunluk.json, canonical NDJSON, JSON
// arrays, CSV, Parquet and Arrow IPC) is decoded into Arrow record batches of
// one staging schema and inserted through DuckDB's Arrow scan, inside one
// transaction per ingest. A file is validated while it is decoded; the first
// bad value aborts the transaction with an error naming file:line:field, so
// the database is left exactly as it was.
//
// Tables (see the README for the full column list):
//
//	requests     one row per attempt, the canonical request log
//	events       side table: replica states, restarts and other non-attempt rows
//	runs         one row per (experiment, run) with its stored parameters
//	experiments  one row per experiment with its stored parameters
//	files        one row per ingested file, keyed by content hash (re-ingest is a no-op)
package ingest

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// DDL creates rewind's tables. It is idempotent.
const DDL = `
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
`

// EnsureSchema creates the tables when they are missing.
func EnsureSchema(ctx context.Context, db execer) error {
	if _, err := db.ExecContext(ctx, DDL); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	return nil
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// stageSchema is the Arrow schema of the request batches a decoder produces.
// Nullable everywhere: defaults (run, role, attempt, count, ...) are filled in
// SQL at insert time, so decoders only record what the file says.
var stageSchema = arrow.NewSchema([]arrow.Field{
	{Name: "line", Type: arrow.PrimitiveTypes.Int64},
	{Name: "experiment", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "run", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "role", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "req", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "req_text", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "attempt", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "t_ms", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "ts_us", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "latency_ms", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "outcome", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "status", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "tagged", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "user_id", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "batch_id", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "client_id", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "retried", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "drop_reason", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "count", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "attrs", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "run_group", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ord", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// Column indexes into stageSchema.
const (
	colLine = iota
	colExperiment
	colRun
	colRole
	colReq
	colReqText
	colAttempt
	colTMs
	colTsUs
	colLatency
	colOutcome
	colStatus
	colTagged
	colUserID
	colBatchID
	colClientID
	colRetried
	colDropReason
	colCount
	colAttrs
	colGroup // the tool's own grouping (k6 scenario, Vegeta attack): the run unless --experiment makes each file a run
	colOrd   // position in the file: the order of rows, since one line may hold many
	numStageCols
)
