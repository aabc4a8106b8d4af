#!/usr/bin/env bash
# Spark: the analyses that run on Spark (blast-radius, peaks) through Spark
# Connect on the local standalone cluster of .ci/spark, with 1 and with 2
# one-core workers, beside local DuckDB on the database file. For each: the
# median wall time of 3 runs of the CLI end to end (a new session each, so
# the views' registration and the small tables' copy are in it), the
# client's peak RSS and the bytes of Arrow it pulled (REWIND_SPARK_STATS).
# The generated chaos-shaped log (bench/genlog), its database and dataset
# are kept in $TMPDIR/rewind-bench-spark-ROWS (delete to regenerate). The
# cluster is restarted for each worker count and stopped at the end.
# Prints a Markdown table for bench/README.md.
# Usage: bench/spark.sh [ROWS...]        (default: 10000000)
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="-buildvcs=false -tags=duckdb_arrow"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000000)
bin=$(mktemp -d)/rewind
go build -o "$bin" ./cmd/rewind
url=sc://127.0.0.1:15002
analyses=(blast-radius peaks)
trap '.ci/spark down' EXIT

# dataset DB DIR: the database's tables as a hive-partitioned Parquet dataset
# (TODO(merge): rewind export writes it).
dataset() {
	mkdir -p "$2/files"
	"$bin" sql --db "$1" --write "COPY (SELECT * FROM requests) TO '$2/requests' (FORMAT parquet, PARTITION_BY (experiment, run))" >/dev/null
	"$bin" sql --db "$1" --write "COPY (SELECT * FROM runs) TO '$2/runs' (FORMAT parquet, PARTITION_BY (experiment))" >/dev/null
	"$bin" sql --db "$1" --write "COPY (SELECT * FROM experiments) TO '$2/experiments' (FORMAT parquet, PARTITION_BY (experiment))" >/dev/null
	"$bin" sql --db "$1" --write "COPY (SELECT * FROM files) TO '$2/files/part-0.parquet' (FORMAT parquet)" >/dev/null
}

# timed ARGS...: "seconds peak-RSS-MB bytes" of one run of rewind ARGS
timed() {
	local err
	err=$(mktemp)
	REWIND_SPARK_STATS=1 /usr/bin/time -f 'time %e %M' "$bin" "$@" >/dev/null 2>"$err" || { cat "$err" >&2; exit 1; }
	awk '/^time / { t = $2; m = $3 / 1024 } /^spark: / { b = $5 } END { printf "%s %.0f %s\n", t, m, (b == "" ? "-" : b) }' "$err"
	rm -f "$err"
}

# median3 ARGS...: the run with the median time of 3
median3() {
	{ timed "$@"; timed "$@"; timed "$@"; } | sort -n | sed -n 2p
}

rows=()
# add ROW: a row of the table, shown on stderr as it is measured
add() {
	rows+=("$1")
	echo "bench: $1" >&2
}
for n in "${sizes[@]}"; do
	d=${TMPDIR:-/tmp}/rewind-bench-spark-$n
	if [ ! -e "$d/rewind.duckdb" ]; then
		mkdir -p "$d"
		go run ./bench/genlog -rows "$n" -dir "$d/log" >/dev/null
		"$bin" ingest --db "$d/rewind.duckdb" --quiet "$d"/log/* >/dev/null
		rm -rf "$d/log" "$d/ds"
		dataset "$d/rewind.duckdb" "$d/ds"
	fi
	for a in "${analyses[@]}"; do
		add "$a $n local $(median3 analyze "$a" --db "$d/rewind.duckdb" --format json)"
	done
	for w in 1 2; do
		.ci/spark down >/dev/null 2>&1
		REWIND_SPARK_WORKERS=$w .ci/spark up >/dev/null
		for a in "${analyses[@]}"; do
			"$bin" analyze "$a" --spark "$url" --dataset "$d/ds" --format json >/dev/null # warm the cluster
			add "$a $n spark-$w $(median3 analyze "$a" --spark "$url" --dataset "$d/ds" --format json)"
		done
	done
done
echo "| analysis | rows | engine | time (s) | client peak RSS (MB) | Arrow pulled (bytes) |"
echo "|---|---:|---|---:|---:|---:|"
for r in "${rows[@]}"; do
	set -- $r
	case $3 in
	local) e="DuckDB, database file" ;;
	spark-1) e="Spark, 1 worker" ;;
	*) e="Spark, 2 workers" ;;
	esac
	echo "| $1 | $2 | $e | $4 | $5 | $6 |"
done
