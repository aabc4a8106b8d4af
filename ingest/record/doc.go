// Package record is what every input format shares, and all a format
// package imports of the ingest: the contract (Format, Input, Sink, and the
// optional Streamed, Layouted, Refuser and LineDecoder), the canonical row
// (Row) and its Arrow builder (Builder, Rows), the canonical columns'
// setters (SetterOf, SetField), the staging
// schema (Schema, the Col* numbers), errors that name line and field
// (FieldErr, LineErr, LineError), the line reader (NewLineReader,
// TextLines) and the detection helpers (JSONText, FirstLine, FirstObject,
// Magic, HasExt, RunName). It imports nothing of ingest.
//
// The staging columns are those of record.Schema: line, experiment, run,
// role, req, req_text, attempt, t_ms, ts_us, latency_ms, outcome, status,
// tagged, user_id, batch_id, client_id, retried, drop_reason, count,
// attrs, run_group, ord. A decoder sets only what the file says (Row.Set
// marks a column given); the ingest fills the defaults in SQL.
package record
