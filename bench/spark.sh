#!/usr/bin/env bash
# Spark: every analysis that runs on Spark, through Spark Connect on the
# local standalone cluster of .ci/spark with 1 and with 2 one-core workers,
# beside local DuckDB on the database file and in place on the dataset.
# For each: the median wall time of REWIND_BENCH_RUNS runs (default 3) of
# the CLI end to end (a new Spark session each, so the views' registration
# and the small tables' copy are in it), the client's peak RSS and the
# bytes of Arrow it pulled (REWIND_SPARK_STATS). The log is bench/genlog's
# chaos-shaped one (interleaved, its seeded plan stored), ingested with
# --experiment bench and written as a dataset by rewind export; the log,
# database and dataset are kept in $TMPDIR/rewind-bench-spark-ROWS (delete
# to regenerate). The cluster is restarted for each worker count and
# stopped at the end. Export and conversion throughput are bench/dataset.sh's.
# Prints a Markdown table for bench/README.md.
# Usage: bench/spark.sh [ROWS...]        (default: 10000000)
#   REWIND_BENCH_ONLY=REGEX measures only the analyses whose names match;
#   REWIND_BENCH_WORKERS (default "1 2") the worker counts ("" for none);
#   REWIND_BENCH_WARM=0 skips the run that warms the cluster before each
#   analysis's timed runs (at 100 M rows it would double the time).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="-buildvcs=false -tags=duckdb_arrow"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000000)
runs=${REWIND_BENCH_RUNS:-3}
only=${REWIND_BENCH_ONLY:-.}
tmp=$(mktemp -d)
bin=$tmp/rewind
go build -o "$bin" ./cmd/rewind
go build -o "$tmp/genlog" ./bench/genlog
url=sc://127.0.0.1:15002
cluster=0 # set once this script restarts the cluster: only then is it stopped at the end
trap '[ $cluster = 0 ] || .ci/spark down >/dev/null 2>&1; rm -rf "$tmp"' EXIT

source bench/spark_lib.sh # analyses, and ARGO (the gate's template) in $tmp

# timed ARGS...: "seconds peak-RSS-MB bytes" of one run of rewind ARGS, or
# "refused" when rewind refuses it (an option not on Spark yet)
timed() {
	local err=$tmp/err
	if ! REWIND_SPARK_STATS=1 /usr/bin/time -f 'time %e %M' "$bin" "$@" >/dev/null 2>"$err"; then
		grep -q 'does not run on Spark' "$err" && { echo refused; return; }
		cat "$err" >&2
		exit 1
	fi
	awk '/^time / { t = $2; m = $3 / 1024 } /^spark: / { b = $5 } END { printf "%s %.0f %s\n", t, m, (b == "" ? "-" : b) }' "$err"
}

# median ARGS...: the run with the median time of $runs
median() {
	local i
	for ((i = 0; i < runs; i++)); do timed "$@"; done | sort -n | sed -n "$(((runs + 1) / 2))p"
}

rows=()
# add ROW: a row of the table, shown on stderr as it is measured
add() {
	rows+=("$1")
	echo "bench: $1" >&2
}
for n in "${sizes[@]}"; do
	d=${TMPDIR:-/tmp}/rewind-bench-spark-$n
	if [ ! -e "$d/complete" ]; then
		rm -rf "$d" && mkdir -p "$d"
		"$tmp/genlog" -rows "$n" -dir "$d/log" >/dev/null
		"$bin" ingest --db "$d/rewind.duckdb" --quiet --experiment bench "$d"/log/* >/dev/null
		rm -rf "$d/log"
		"$bin" export --db "$d/rewind.duckdb" "$d/ds" >/dev/null
		: >"$d/complete"
	fi
	while IFS='|' read -r name args; do
		[[ $name =~ $only ]] || continue
		eval "set -- $args"
		add "$name $n local $(median analyze "$@" --db "$d/rewind.duckdb" --format json)"
		add "$name $n inplace $(median analyze "$@" --dataset "$d/ds" --format json)"
	done <<<"$analyses"
	for w in ${REWIND_BENCH_WORKERS-1 2}; do
		cluster=1
		.ci/spark down >/dev/null 2>&1
		REWIND_SPARK_WORKERS=$w .ci/spark up >/dev/null
		while IFS='|' read -r name args; do
			[[ $name =~ $only ]] || continue
			eval "set -- $args"
			[ "${REWIND_BENCH_WARM:-1}" = 0 ] ||
				"$bin" analyze "$@" --spark "$url" --dataset "$d/ds" --format json >/dev/null 2>&1 || true # warm the cluster
			add "$name $n spark-$w $(median analyze "$@" --spark "$url" --dataset "$d/ds" --format json)"
		done <<<"$analyses"
	done
done
echo "| analysis | rows | engine | time (s) | client peak RSS (MB) | Arrow pulled (bytes) |"
echo "|---|---:|---|---:|---:|---:|"
for r in "${rows[@]}"; do
	set -- $r
	case $3 in
	local) e="DuckDB, database file" ;;
	inplace) e="DuckDB, dataset in place" ;;
	spark-1) e="Spark, 1 worker" ;;
	*) e="Spark, 2 workers" ;;
	esac
	if [ "$4" = refused ]; then
		echo "| $1 | $2 | $e | refused | | |"
	else
		echo "| $1 | $2 | $e | $4 | $5 | $6 |"
	fi
done
