// Package ingest loads request logs into rewind's DuckDB file, opened by
// store (which creates the tables: queries/schema.sql).
//
// This package is the pipeline only: inputs, decompression and caps,
// detection through the registry, batches, the sink, merge rules and the
// files table. Every format of the registry (registry.go: the packages
// under ingest/format, one per format or family, canonical NDJSON, JSON
// and CSV among them) is decoded into Arrow record batches of one
// staging schema and inserted through DuckDB's Arrow scan, inside one
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
