#!/usr/bin/env bash
# Wall times of the gate's analyses (bench/icount_lib.sh's list, the
# ingests left out) from the CLI, warm, for several builds of rewind run in
# alternation in the same minutes, median of 3 each, on the analyses
# benchmark's generated log (genlog, interleaved), ingested once by the
# last build. Prints a Markdown table, each cell the median wall time and
# the median CPU time (user + sys) of its 3 runs, with the load average
# before each command's rounds: on a shared machine, read the CPU seconds
# beside the wall ones (and the instruction counts of bench/icount.sh for
# the direction).
# Usage: bench/alternate.sh [-rows N] [-only REGEX] REV...
#   REV is a git revision (built from `git archive`) or "." (the work
#   tree); default rows 10000000. Files go to $TMPDIR/rewind-alternate-N.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/icount_lib.sh
rows=10000000 only=""
while [ $# -gt 0 ]; do
	case $1 in
	-rows) rows=$2 && shift 2 ;;
	-only) only=$2 && shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: bench/alternate.sh [-rows N] [-only REGEX] REV..." >&2 && exit 2; }
WORK=${TMPDIR:-/tmp}/rewind-alternate-$rows
LOG=$WORK
DB=$WORK/analyses.duckdb
mkdir -p "$WORK/bin"
revs=("$@")
for i in "${!revs[@]}"; do
	src=.
	if [ "${revs[$i]}" != . ]; then
		src=$WORK/src-$i
		rm -rf "$src" && mkdir -p "$src"
		git archive "${revs[$i]}" | tar -x -C "$src"
	fi
	(cd "$src" && go build -buildvcs=false -tags duckdb_arrow -o "$WORK/bin/rewind-$i" ./cmd/rewind)
done
printf '%s\n' "$argo" >"$WORK/argo.yaml"
go build -buildvcs=false -tags duckdb_arrow -o "$WORK/bin/genlog" ./bench/genlog
[ -s "$LOG/control.ndjson" ] || "$WORK/bin/genlog" -rows "$rows" -dir "$LOG" >/dev/null
last=$((${#revs[@]} - 1))
[ -s "$DB" ] || "$WORK/bin/rewind-$last" ingest --quiet --db "$DB" --experiment bench "$LOG/control.ndjson" >/dev/null

printf '| command (%s rows) |' "$rows"
printf ' %s, wall / CPU (s) |' "${revs[@]}"
printf ' load average |\n|---|'
printf -- '---:|%.0s' "${revs[@]}"
printf -- '---:|\n'
while IFS='|' read -r name args; do
	case $name in ingest-* | startup) continue ;; esac
	[ -z "$only" ] || [[ $name =~ $only ]] || continue
	eval "set -- $args"
	load=$(cut -d' ' -f1 /proc/loadavg)
	for i in "${!revs[@]}"; do # warm each build's pages once
		"$WORK/bin/rewind-$i" "$@" >/dev/null 2>&1 || { echo "alternate: ${revs[$i]}: rewind $* failed" >&2 && exit 1; }
	done
	declare -A t=() c=()
	for round in 1 2 3; do
		for i in "${!revs[@]}"; do
			/usr/bin/time -f '%e %U %S' -o "$WORK/time" "$WORK/bin/rewind-$i" "$@" >/dev/null 2>&1
			read -r wall user sys <"$WORK/time"
			t[$i]+="$wall "
			c[$i]+="$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') "
		done
	done
	printf '| %s |' "$name"
	for i in "${!revs[@]}"; do
		printf ' %s / %s |' "$(tr ' ' '\n' <<<"${t[$i]}" | grep . | sort -n | sed -n 2p)" \
			"$(tr ' ' '\n' <<<"${c[$i]}" | grep . | sort -n | sed -n 2p)"
	done
	printf ' %s |\n' "$load"
	unset t c
done <<<"$commands"
