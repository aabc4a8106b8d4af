#!/usr/bin/env bash
# Where the cores go when a second one-core worker joins (issue 36 §6):
# for each worker count, every analysis of bench/spark.sh's list on
# .ci/spark's cluster with an event log, and for each run
#   - the wall time of the CLI end to end (one run; a run under 60 s is
#     run again and the second, warm, one is kept);
#   - the CPU seconds of the cluster's processes over that run, from
#     /proc (the executors, the Connect server that drives the job, the
#     master and workers' daemons) and the client's, and how many of the
#     machine's cores that is on average (CPU / wall);
#   - from the event log (bench/sparkstages.py): the time with no task
#     running, one, and two or more, and the time the plan allows on two
#     one-core workers with cores of their own (--slots 2; from the
#     one-worker log only).
# It reads the dataset bench/spark.sh keeps in
# $TMPDIR/rewind-bench-spark-ROWS/ds (run that first). Prints a Markdown
# table for bench/README.md.
# Usage: bench/sparkcores.sh [ROWS]        (default: 100000000)
#   REWIND_BENCH_ONLY=REGEX measures only the analyses whose names match;
#   REWIND_BENCH_WORKERS (default "1 2") the worker counts.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="-buildvcs=false -tags=duckdb_arrow"
n=${1:-100000000}
only=${REWIND_BENCH_ONLY:-.}
ds=${TMPDIR:-/tmp}/rewind-bench-spark-$n/ds
[ -e "$ds/_rewind.json" ] || { echo "sparkcores: no dataset at $ds: run bench/spark.sh $n first" >&2; exit 2; }
tmp=$(mktemp -d)
bin=$tmp/rewind
go build -o "$bin" ./cmd/rewind
url=sc://127.0.0.1:15002
trap '.ci/spark down >/dev/null 2>&1; rm -rf "$tmp"' EXIT
source bench/spark_lib.sh
tk=$(getconf CLK_TCK)

# cpu: "PID ROLE TICKS" of each of the cluster's JVMs
cpu() {
	local p role
	for p in $(pgrep java || true); do
		role=$(tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null | grep -o 'SparkConnectServer\|CoarseGrainedExecutorBackend\|deploy.master.Master\|deploy.worker.Worker' | head -1) || true
		if [ -n "$role" ]; then # not `&&`: a last java that is not Spark's would fail the pipeline
			echo "$p $role $(awk '{print $14 + $15}' /proc/"$p"/stat)"
		fi
	done | sort
}

# measured ARGS...: "wall driver_cpu executors_cpu daemons_cpu client_cpu" of one run
measured() {
	local a b t0 t1
	a=$(cpu)
	t0=$(date +%s.%N)
	/usr/bin/time -f 'client %U %S' "$bin" analyze "$@" --spark "$url" --dataset "$ds" --format json >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	t1=$(date +%s.%N)
	b=$(cpu)
	join <(echo "$a") <(echo "$b") | awk -v tk="$tk" -v w="$(echo "$t1 - $t0" | bc)" -v c="$(awk '/^client/ { print $2 + $3 }' "$tmp/err")" '
		{ d = ($5 - $3) / tk }
		$2 == "SparkConnectServer" { dr += d; next }
		$2 == "CoarseGrainedExecutorBackend" { ex += d; next }
		{ dm += d }
		END { printf "%.2f %.2f %.2f %.2f %.2f\n", w, dr, ex, dm, c }'
}

rows=()
for w in ${REWIND_BENCH_WORKERS-1 2}; do
	ev=$tmp/events-$w
	mkdir -p "$ev"
	.ci/spark down >/dev/null 2>&1
	REWIND_SPARK_WORKERS=$w REWIND_SPARK_CONF=$'spark.eventLog.enabled=true\nspark.eventLog.compress=false\nspark.eventLog.dir=file://'"$ev" .ci/spark up >/dev/null
	"$bin" analyze peaks --spark "$url" --dataset "$ds" --format json >/dev/null # the JVMs' first compiling
	while IFS='|' read -r name args; do
		[[ $name =~ $only ]] || continue
		eval "set -- $args"
		m=$(measured "$@")
		if awk -v t="${m%% *}" 'BEGIN { exit !(t < 60) }'; then
			m=$(measured "$@")
		fi
		sleep 1 # the event log's last lines
		s=$(python3 bench/sparkstages.py --slots 2 --last --brief "$ev"/eventlog_v2_*/)
		row="$name $w $m $(echo "$s" | sed -E 's/.*tasks at once: 0 ([0-9.]+) s, 1 ([0-9.]+) s, 2\+ ([0-9.]+) s.*on 2 slots ([0-9.]+) s.*/\1 \2 \3 \4/')"
		rows+=("$row")
		echo "sparkcores: $row" >&2
	done <<<"$analyses"
done
echo "| analysis | workers | wall (s) | Connect server CPU (s) | executors' CPU (s) | daemons' CPU (s) | client CPU (s) | cores busy | no task (s) | one task (s) | two or more (s) | plan on 2 own cores (s) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for r in "${rows[@]}"; do
	set -- $r
	busy=$(awk -v w="$3" -v a="$4" -v b="$5" -v c="$6" -v d="$7" 'BEGIN { printf "%.2f", (a + b + c + d) / w }')
	plan=${11}
	[ "$2" = 1 ] || plan=–
	echo "| $1 | $2 | $3 | $4 | $5 | $6 | $7 | $busy | $8 | $9 | ${10} | $plan |"
done
