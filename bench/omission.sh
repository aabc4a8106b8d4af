#!/usr/bin/env bash
# Coordinated omission, warm: `rewind analyze omission` on the analyses benchmark's
# generated chaos-shaped log (bench/analyses.sh describes it), its req read
# as the schedule's sequence, medians of 3 runs in one process: "rate" is
# --rate 500/1s (corrected percentiles and 1 s windows), "inferred" the
# omission macro reading each run's interval from the gaps stored in
# run_gaps, "inferred-end-to-end" what the command runs on a Vegeta log
# without --rate, "infer-at-ingest" the gaps inferred again (what an ingest
# of a Vegeta file pays), "backfill" is
# --expected-interval 10ms (HdrHistogram's back-fill); beside them the
# anchors "anchor-quantiles" (one percentile pass) and "anchor-sort" (each
# run sorted by req). The database is kept in
# $TMPDIR/rewind-bench-analyses-interleaved-ROWS (shared with analyses.sh).
# Usage: bench/omission.sh [ROWS...]        (default: 10000000)
source "$(dirname "$0")/medians.sh"
medians_table omission BenchmarkOmission "$@"
