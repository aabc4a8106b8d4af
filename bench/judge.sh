#!/usr/bin/env bash
# The judge, warm: `rewind analyze judge` on the analyses benchmark's
# generated chaos-shaped log (bench/analyses.sh describes it), medians of 3
# runs in one process: "steps" is queries/judge.sql's arrays alone (the
# default metrics at 60 s steps), "func" the whole judgement as the CLI runs
# it, "func-1s" the same at 1 s steps. The database is kept in
# $TMPDIR/rewind-bench-analyses-interleaved-ROWS (shared with analyses.sh).
# Usage: bench/judge.sh [ROWS...]        (default: 10000000)
source "$(dirname "$0")/medians.sh"
medians_table judge BenchmarkJudge "$@"
