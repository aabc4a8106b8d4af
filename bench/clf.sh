#!/usr/bin/env bash
# Text access log ingest: rewind's clf adapter against DuckDB's read_csv with
# a regex split (regexp_extract) into the same requests table, on one
# generated nginx log (combined + $request_time $upstream_response_time),
# durable (CHECKPOINT), run in alternation in the same minutes. Prints a
# Markdown table for bench/README.md. Usage: bench/clf.sh [LINES...]
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="-buildvcs=false -tags=duckdb_arrow"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)
go test -c -o /tmp/rewind-clf.test ./ingest
echo "| lines | rewind ingest (s) | DuckDB read_csv + regexp_extract (s) | ratio (DuckDB / rewind) |"
echo "|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
	out=$(REWIND_BENCH_ROWS=$n /tmp/rewind-clf.test -test.run '^$' -test.bench "(IngestCLF|DuckDBRegexCLF)$" -test.benchtime 1x -test.count 3)
	secs() { awk -v name="$1" '$1 ~ "^"name"-" {s += $3; k++} END {printf "%.2f", s / k / 1e9}' <<<"$out"; }
	r=$(secs BenchmarkIngestCLF) d=$(secs BenchmarkDuckDBRegexCLF)
	printf '| %s | %s | %s | %.2f |\n' "$n" "$r" "$d" "$(awk -v r="$r" -v d="$d" 'BEGIN {print d / r}')"
done
rm -f /tmp/rewind-bench-*.access.log
