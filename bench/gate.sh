#!/usr/bin/env bash
# The gate replays, warm: `rewind analyze gate` on the analyses benchmark's
# generated chaos-shaped log (bench/analyses.sh describes it), medians of 3
# runs in one process: "argo" an AnalysisTemplate of two metrics every 30 s
# over the last minute, "flagger" a Canary's two built-in checks every 30 s,
# "keptn" an slo.yaml every minute (analyze/gate_bench_test.go has the
# definitions). The database is kept in
# $TMPDIR/rewind-bench-analyses-interleaved-ROWS (shared with analyses.sh).
# Usage: bench/gate.sh [ROWS...]        (default: 10000000)
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="-buildvcs=false -tags=duckdb_arrow"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000000)
bin=$(mktemp -d)/rewind-analyze.test
go test -c -o "$bin" ./analyze
echo "| gate | rows | median (s) |"
echo "|---|---:|---:|"
for n in "${sizes[@]}"; do
	REWIND_BENCH_ROWS=$n "$bin" -test.run '^$' -test.bench '^BenchmarkGate$' -test.benchtime 3x -test.timeout 1h |
		awk -v rows="$n" '/^BenchmarkGate\// { split($1, p, "/"); sub(/-[0-9]+$/, "", p[2])
			for (i = 1; i < NF; i++) if ($(i+1) == "median-s") printf "| %s | %s | %.3f |\n", p[2], rows, $i }'
done
