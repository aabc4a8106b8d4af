#!/usr/bin/env bash
# Instruction-count gate (issue 41): counts the CPU instructions of every
# analysis on a fixed generated 1 M-row log, and of the NDJSON and CLF
# ingest of 1 M rows, under valgrind's cachegrind (--cache-sim=no: it counts
# instructions only), DuckDB single-threaded (REWIND_THREADS=1), Go on one
# P without asynchronous preemption. Counts repeat where wall times do not
# (bench/README.md, "Instruction counts"). Each command's count is net of
# start-up: the "startup" line (an empty query on the same database,
# counted whole) is subtracted from every other line.
#
# Usage: bench/icount.sh [--check | --update REASON] [--only REGEX]
#          [--baseline FILE] [--counts FILE] [--keep FILE]
#   (no mode)        measure and print the table against the baseline
#   --check          exit 1 when a count grows more than 10 % over the
#                    baseline (or has no baseline line); a drop of more than
#                    10 % passes with a note to update the baseline
#   --update REASON  rewrite the baseline: every line that moved more than
#                    1 % (or is new) takes the new count and REASON; the
#                    other lines keep theirs
#   --only REGEX     measure only the commands whose names match (startup
#                    is always measured)
#   --baseline FILE  default bench/icount.baseline
#   --counts FILE    compare the raw counts in FILE (NAME COUNT lines, as
#                    --keep writes them) instead of measuring
#   --keep FILE      write the raw counts measured to FILE
# ICOUNT_JOBS (default 2) measurements run at once; ICOUNT_DIR (default
# $TMPDIR/rewind-icount) holds the logs, databases and valgrind's reports.
set -euo pipefail
here=$PWD
cd "$(dirname "$0")/.."
source bench/icount_lib.sh
abs() { case $1 in /*) echo "$1" ;; *) echo "$here/$1" ;; esac }

mode=show reason="" only="" counts="" keep=""
baseline=bench/icount.baseline
while [ $# -gt 0 ]; do
	case $1 in
	--check) mode=check ;;
	--update)
		mode=update reason=${2-}
		shift || true
		;;
	--only) only=${2:?--only needs a REGEX} && shift ;;
	--baseline) baseline=$(abs "${2:?--baseline needs a FILE}") && shift ;;
	--counts) counts=$(abs "${2:?--counts needs a FILE}") && shift ;;
	--keep) keep=$(abs "${2:?--keep needs a FILE}") && shift ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "icount: unknown argument $1 (see --help)" >&2
		exit 2
		;;
	esac
	shift
done
if [ "$mode" = update ] && [ -z "${reason//[[:space:]]/}" ]; then
	echo "icount: --update needs a one-line REASON for the change (refused)" >&2
	exit 2
fi
case $reason in *$'\n'*)
	echo "icount: the REASON must be one line (refused)" >&2
	exit 2
	;;
esac
read_baseline "$baseline" || exit 1

if [ -z "$counts" ]; then
	counts=$(mktemp)
	measure_all "$only" "$counts" || exit 1
	[ -z "$keep" ] || cp "$counts" "$keep"
fi
compare "$mode" "$baseline" "$counts" "$reason"
