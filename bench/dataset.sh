#!/usr/bin/env bash
# The Parquet dataset (docs/dataset.md): export throughput, conversion with
# 1 and 2 processes, and analyses in place against the database file, on the
# chaos-shaped log written as one file per run (bench/genlog -shape
# sequential: control.ndjson and experiment.ndjson, N/2 rows each). Wall
# seconds and peak RSS of each process (/usr/bin/time), CLI start included.
# Conversion rows: each file its own experiment (the default: the two
# processes decode at once and commit in turn), then both files as runs of
# one experiment (--experiment bench: the second commit converts again).
# Usage: bench/dataset.sh [ROWS...]        (default: 10000000)
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="-buildvcs=false -tags=duckdb_arrow"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000000)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/rewind" ./cmd/rewind
go build -o "$bin/genlog" ./bench/genlog
rw="$bin/rewind"

# measure CMD...: runs it, sets $secs and $rss (MB); fails loudly
measure() {
	if ! /usr/bin/time -f "%e %M" -o "$bin/time" "$@" >"$bin/out" 2>"$bin/err"; then
		echo "failed: $*" >&2
		cat "$bin/err" >&2
		exit 1
	fi
	read -r secs kb <"$bin/time"
	rss=$((kb / 1024))
}

# pair CMD1 -- CMD2: runs both at once, sets $secs (wall of the pair) and
# $rss (the larger peak)
pair() {
	local a=() b=() in_b=0
	for x in "$@"; do
		if [ "$x" = "--" ]; then in_b=1; elif [ $in_b = 1 ]; then b+=("$x"); else a+=("$x"); fi
	done
	local t0 t1
	t0=$(date +%s.%N)
	/usr/bin/time -f "%M" -o "$bin/ta" "${a[@]}" >"$bin/oa" 2>&1 &
	local pa=$!
	/usr/bin/time -f "%M" -o "$bin/tb" "${b[@]}" >"$bin/ob" 2>&1 &
	local pb=$!
	wait $pa || { cat "$bin/oa" >&2; exit 1; }
	wait $pb || { cat "$bin/ob" >&2; exit 1; }
	t1=$(date +%s.%N)
	secs=$(echo "$t1 - $t0" | bc)
	local ka kb2
	ka=$(tail -1 "$bin/ta")
	kb2=$(tail -1 "$bin/tb")
	rss=$(((ka > kb2 ? ka : kb2) / 1024))
}

row() { # what rows secs rss
	printf '| %s | %.1f | %.2f | %d |\n' "$1" "$3" "$(echo "$2 / $3 / 1000000" | bc -l)" "$4"
}

for n in "${sizes[@]}"; do
	d="${TMPDIR:-/tmp}/rewind-dataset-$n"
	mkdir -p "$d"
	[ -s "$d/experiment.ndjson" ] || "$bin/genlog" -rows "$n" -shape sequential -dir "$d" >/dev/null
	c="$d/control.ndjson"
	x="$d/experiment.ndjson"
	rm -rf "$d/db.duckdb" "$d/export" "$d/one" "$d/two" "$d/onex" "$d/twox" "$d/db.duckdb.wal"
	echo
	echo "### $n rows"
	echo
	echo "| step | wall (s) | M rows/s | peak RSS (MB) |"
	echo "|---|---:|---:|---:|"
	measure "$rw" ingest --db "$d/db.duckdb" "$c" "$x"
	row "ingest into a database (1 process, for reference)" "$n" "$secs" "$rss"
	measure "$rw" export --db "$d/db.duckdb" "$d/export"
	row "export" "$n" "$secs" "$rss"
	measure "$rw" ingest --dataset "$d/one" "$c" "$x"
	row "convert, 1 process, 2 files" "$n" "$secs" "$rss"
	pair "$rw" ingest --dataset "$d/two" "$c" -- "$rw" ingest --dataset "$d/two" "$x"
	row "convert, 2 processes, a file each" "$n" "$secs" "$rss"
	measure "$rw" ingest --dataset "$d/onex" --experiment bench "$c" "$x"
	row "convert, 1 process, one experiment" "$n" "$secs" "$rss"
	pair "$rw" ingest --dataset "$d/twox" --experiment bench "$c" -- "$rw" ingest --dataset "$d/twox" --experiment bench "$x"
	row "convert, 2 processes, one experiment" "$n" "$secs" "$rss"
	echo
	echo "| analysis (experiment control) | database (s) | dataset in place (s) | dataset peak RSS (MB) |"
	echo "|---|---:|---:|---:|"
	for a in "peaks" "retries" "amplification"; do
		measure "$rw" analyze $a --db "$d/db.duckdb" --experiment control
		dbs=$secs
		measure "$rw" analyze $a --dataset "$d/export" --experiment control
		printf '| %s | %.2f | %.2f | %d |\n' "$a" "$dbs" "$secs" "$rss"
	done
	du -sh "$d/db.duckdb" "$d/export" | sed 's/^/    size: /'
done
