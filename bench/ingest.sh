#!/usr/bin/env bash
# Ingest throughput: rewind's Arrow path against DuckDB's read_json on the same
# generated canonical NDJSON file, durable (CHECKPOINT), for 1 M to 10 M rows.
# Prints a Markdown table for the README. Usage: bench/ingest.sh [ROWS...]
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="-buildvcs=false -tags=duckdb_arrow"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 3000000 10000000)
go test -c -o /tmp/rewind-ingest.test ./ingest
echo "| rows | rewind ingest (rows/s) | DuckDB read_json, 7-column table (rows/s) | DuckDB read_json into rewind's requests table (rows/s) |"
echo "|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
	out=$(REWIND_BENCH_ROWS=$n /tmp/rewind-ingest.test -test.run '^$' -test.bench . -test.benchtime 3x)
	rate() { awk -v name="$1" '$1 ~ "^"name"-" {for (i=1;i<=NF;i++) if ($(i+1)=="rows/s") print $i}' <<<"$out"; }
	printf '| %s | %.0f | %.0f | %.0f |\n' "$n" "$(rate BenchmarkIngestNDJSON)" "$(rate BenchmarkDuckDBReadJSON)" "$(rate BenchmarkDuckDBReadJSONToRequests)"
done
rm -f /tmp/rewind-bench-*.ndjson
