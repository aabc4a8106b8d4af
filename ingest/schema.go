// Package ingest loads request logs into rewind's DuckDB file, opened by
// store (which creates the tables: queries/schema.sql).
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
	"github.com/apache/arrow-go/v18/arrow"
)

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
