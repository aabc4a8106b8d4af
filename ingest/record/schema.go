package record

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// Schema is the Arrow schema of the request batches a decoder produces.
// Nullable everywhere: defaults (run, role, attempt, count, ...) are filled in
// SQL at insert time, so decoders only record what the file says.
var Schema = arrow.NewSchema([]arrow.Field{
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
	ColLine = iota
	ColExperiment
	ColRun
	ColRole
	ColReq
	ColReqText
	ColAttempt
	ColTMs
	ColTsUs
	ColLatency
	ColOutcome
	ColStatus
	ColTagged
	ColUserID
	ColBatchID
	ColClientID
	ColRetried
	ColDropReason
	ColCount
	ColAttrs
	ColGroup // the tool's own grouping (k6 scenario, Vegeta attack): the run unless --experiment makes each file a run
	ColOrd   // position in the file: the order of rows, since one line may hold many
	NumCols
)
