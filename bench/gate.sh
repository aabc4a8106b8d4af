#!/usr/bin/env bash
# The gate replays, warm: `rewind analyze gate` on the analyses benchmark's
# generated chaos-shaped log (bench/analyses.sh describes it), medians of 3
# runs in one process: "argo" an AnalysisTemplate of two metrics every 30 s
# over the last minute, "flagger" a Canary's two built-in checks every 30 s,
# "keptn" an slo.yaml every minute (analyze/gate_bench_test.go has the
# definitions). The database is kept in
# $TMPDIR/rewind-bench-analyses-interleaved-ROWS (shared with analyses.sh).
# Usage: bench/gate.sh [ROWS...]        (default: 10000000)
source "$(dirname "$0")/medians.sh"
medians_table gate BenchmarkGate "$@"
