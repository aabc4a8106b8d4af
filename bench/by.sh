#!/usr/bin/env bash
# --by, warm: peaks, retries, amplification, burn-rate, falsification,
# stop-damage and judge as the CLI runs them on the analyses benchmark's generated
# chaos-shaped log (bench/analyses.sh describes it), without a grouping
# ("whole") and with --by outcome,tagged
# (4 groups per run), medians of 3 runs in one process. The database is kept
# in $TMPDIR/rewind-bench-analyses-interleaved-ROWS (shared with
# analyses.sh).
# Usage: bench/by.sh [ROWS...]        (default: 10000000)
source "$(dirname "$0")/medians.sh"
medians_table analysis BenchmarkBy "$@"
