#!/usr/bin/env bash
# Coordinated omission, warm: `rewind analyze omission` on the analyses benchmark's
# generated chaos-shaped log (bench/analyses.sh describes it), its req read
# as the schedule's sequence, medians of 3 runs in one process: "rate" is
# --rate 500/1s (corrected percentiles and 1 s windows), "backfill" is
# --expected-interval 10ms (HdrHistogram's back-fill). The database is kept in
# $TMPDIR/rewind-bench-analyses-interleaved-ROWS (shared with analyses.sh).
# Usage: bench/omission.sh [ROWS...]        (default: 10000000)
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="-buildvcs=false -tags=duckdb_arrow"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000000)
bin=$(mktemp -d)/rewind-analyze.test
go test -c -o "$bin" ./analyze
echo "| omission | rows | median (s) |"
echo "|---|---:|---:|"
for n in "${sizes[@]}"; do
	REWIND_BENCH_ROWS=$n "$bin" -test.run '^$' -test.bench '^BenchmarkOmission$' -test.benchtime 3x -test.timeout 1h |
		awk -v rows="$n" '/^BenchmarkOmission\// { split($1, p, "/"); sub(/-[0-9]+$/, "", p[2])
			for (i = 1; i < NF; i++) if ($(i+1) == "median-s") printf "| %s | %s | %.3f |\n", p[2], rows, $i }'
done
