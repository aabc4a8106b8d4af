#!/usr/bin/env bash
# --by, warm: peaks, retries and amplification as the CLI runs them on the
# analyses benchmark's generated chaos-shaped log (bench/analyses.sh
# describes it), without a grouping ("whole") and with --by outcome,tagged
# (4 groups per run), medians of 3 runs in one process. The database is kept
# in $TMPDIR/rewind-bench-analyses-interleaved-ROWS (shared with
# analyses.sh).
# Usage: bench/by.sh [ROWS...]        (default: 10000000)
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="-buildvcs=false -tags=duckdb_arrow"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000000)
bin=$(mktemp -d)/rewind-analyze.test
go test -c -o "$bin" ./analyze
echo "| analysis | rows | median (s) |"
echo "|---|---:|---:|"
for n in "${sizes[@]}"; do
	REWIND_BENCH_ROWS=$n "$bin" -test.run '^$' -test.bench '^BenchmarkBy$' -test.benchtime 3x -test.timeout 1h |
		awk -v rows="$n" '/^BenchmarkBy\// { split($1, p, "/"); sub(/-[0-9]+$/, "", p[2])
			for (i = 1; i < NF; i++) if ($(i+1) == "median-s") printf "| %s | %s | %.3f |\n", p[2], rows, $i }'
done
