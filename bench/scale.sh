#!/usr/bin/env bash
# Scale: one script, one table per size. It generates the chaos-shaped log
# (internal/benchlog, the analyses benchmark's) at each size, writes it as
# NDJSON, CSV and Parquet, and measures with /usr/bin/time (wall seconds,
# peak RSS of the process), each reader after one read of its file (so every
# reader reads from the page cache):
#   - ingest: rewind ingest against DuckDB's own reader (read_json, read_csv,
#     read_parquet) inserting the same file into the same requests table,
#     each into a fresh database, as a ratio (DuckDB's time / rewind's:
#     >= 1.0 means rewind is as fast), and DuckDB's insert alone (the rows
#     rewind wrote, from one DuckDB table into a fresh one: the floor any
#     reader of the same rows meets);
#   - every analysis on the ingested database, warm (the second of two runs);
#   - falsification end to end: rewind ingest + analyze, against the seed's
#     way (bench/falsification.mjs: Node, JSON.parse per line) and one
#     hand-written DuckDB query over the raw file.
# Usage: bench/scale.sh [ROWS...]   (default: 1000000 10000000; 100000000 works
# with ~40 GB of disk). Files go to ${TMPDIR:-/tmp}/rewind-scale-ROWS.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="-buildvcs=false -tags=duckdb_arrow"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)
bin=$(mktemp -d)
go build -o "$bin/rewind" ./cmd/rewind
go build -o "$bin/genlog" ./bench/genlog
rw="$bin/rewind"
tf="$bin/time"

# measure CMD...: runs it, sets $secs and $rss (MB); fails loudly
measure() {
	if ! /usr/bin/time -f "%e %M" -o "$tf" "$@" >"$bin/out" 2>"$bin/err"; then
		echo "failed: $*" >&2
		cat "$bin/err" >&2
		exit 1
	fi
	read -r secs kb <"$tf"
	rss=$((kb / 1024))
}

# the same INSERT as BenchmarkDuckDBReadJSONToRequests, from any reader
insert_sql() {
	echo "SET preserve_insertion_order = false;
INSERT INTO requests SELECT 'bench', run, '', 0, req, NULL, attempt, t_ms, NULL, latency_ms, outcome, NULL,
	tagged, NULL, NULL, NULL, NULL, NULL, 1, NULL, 1, 0, NULL
FROM $1 WHERE run IS NOT NULL"
}

hand_sql() {
	echo "WITH r AS (
	SELECT run, (outcome = 'ok')::INTEGER AS ok, (row_number() OVER (PARTITION BY run ORDER BY req, attempt) - 1) // 40 AS w
	FROM read_json('$1', format = 'newline_delimited') WHERE run IS NOT NULL),
win AS (SELECT run, w, avg(ok) AS share FROM r GROUP BY run, w),
b AS (SELECT avg(share) AS baseline FROM win WHERE run = 'control')
SELECT margin, baseline,
	count(*) FILTER (WHERE run = 'control' AND share < baseline - margin) AS control_falsified,
	count(*) FILTER (WHERE run = 'control') AS control_windows,
	count(*) FILTER (WHERE run = 'experiment' AND share < baseline - margin) AS experiment_falsified,
	count(*) FILTER (WHERE run = 'experiment') AS experiment_windows
FROM win, b, (SELECT unnest([0, 0.05, 0.1, 0.2]) AS margin) GROUP BY ALL ORDER BY margin"
}

for n in "${sizes[@]}"; do
	d="${TMPDIR:-/tmp}/rewind-scale-$n"
	mkdir -p "$d"
	log="$d/control.ndjson" # interleaved: one file, named for its first run
	if [ ! -s "$log" ]; then
		"$bin/genlog" -rows "$n" -dir "$d" >/dev/null
	fi
	conv="$d/convert.duckdb"
	rm -f "$conv"
	[ -s "$d/log.csv" ] || "$rw" sql --quiet --write --db "$conv" "COPY (SELECT run, req, attempt, t_ms, latency_ms, outcome, tagged FROM read_json('$log', format = 'newline_delimited') WHERE run IS NOT NULL) TO '$d/log.csv' (HEADER)" >/dev/null
	[ -s "$d/log.parquet" ] || "$rw" sql --quiet --write --db "$conv" "COPY (SELECT run, req, attempt, t_ms, latency_ms, outcome, tagged FROM read_json('$log', format = 'newline_delimited') WHERE run IS NOT NULL) TO '$d/log.parquet' (FORMAT parquet)" >/dev/null
	rm -f "$conv"

	echo
	echo "### $n rows"
	echo
	echo "| ingest | rewind (s) | rewind peak RSS (MB) | DuckDB reader (s) | DuckDB peak RSS (MB) | ratio |"
	echo "|---|---:|---:|---:|---:|---:|"
	for f in ndjson csv parquet; do
		src="$d/log.$f"
		reader="read_csv('$src', header = true)"
		case $f in
		ndjson) src="$log" reader="read_json('$log', format = 'newline_delimited')" ;;
		parquet) reader="read_parquet('$src')" ;;
		esac
		db="$d/rewind-$f.duckdb"
		rm -f "$db" "$db.wal"
		cat "$src" >/dev/null # both read the file from the page cache
		measure "$rw" ingest --quiet --db "$db" --experiment bench "$src"
		rs=$secs rr=$rss
		ddb="$d/duckdb-$f.duckdb"
		rm -f "$ddb" "$ddb.wal"
		# the same table: the schema from an empty ingest, then DuckDB's insert
		printf '{"run":"x","outcome":"ok"}\n' >"$d/one.ndjson"
		"$rw" ingest --quiet --db "$ddb" "$d/one.ndjson" >/dev/null
		"$rw" sql --quiet --write --db "$ddb" "DELETE FROM requests" >/dev/null
		cat "$src" >/dev/null
		measure "$rw" sql --quiet --write --db "$ddb" "$(insert_sql "$reader")"
		printf '| %s | %s | %s | %s | %s | %.2f |\n' "$f" "$rs" "$rr" "$secs" "$rss" "$(echo "$secs / $rs" | bc -l)"
	done
	# DuckDB's insert alone: rewind's rows (every column as ingest wrote
	# it) from one DuckDB table into the same table in a fresh database, no
	# decoding at all, with the readers' preserve_insertion_order = false.
	ddb="$d/duckdb-floor.duckdb"
	rm -f "$ddb" "$ddb.wal"
	"$rw" ingest --quiet --db "$ddb" "$d/one.ndjson" >/dev/null
	"$rw" sql --quiet --write --db "$ddb" "DELETE FROM requests" >/dev/null
	measure "$rw" sql --quiet --write --db "$ddb" "SET preserve_insertion_order = false; ATTACH '$d/rewind-ndjson.duckdb' AS src (READ_ONLY); INSERT INTO requests SELECT * FROM src.requests"
	printf '| (DuckDB inserting the rows rewind wrote, from a DuckDB table: no decoding) | – | – | %s | %s | – |\n' "$secs" "$rss"

	db="$d/rewind-ndjson.duckdb"
	echo
	echo "| analysis (warm) | time (s) | peak RSS (MB) |"
	echo "|---|---:|---:|"
	while read -r name args; do
		# shellcheck disable=SC2086
		"$rw" $args --db "$db" -e bench >/dev/null 2>&1 || true
		# shellcheck disable=SC2086
		measure "$rw" $args --db "$db" -e bench
		printf '| %s | %s | %s |\n' "${name//_/ }" "$secs" "$rss"
	done <<'LIST'
blast-radius analyze blast-radius --quiet
falsification analyze falsification --quiet
stop-damage analyze stop-damage --quiet
falsification_p95 analyze falsification --quiet --metric p95 --window 1s --tolerance 20%
peaks analyze peaks --quiet
peaks_--sliding analyze peaks --quiet --sliding
retries analyze retries --quiet
amplification analyze amplification --quiet
replay_--fast replay --quiet --fast
burn-rate analyze burn-rate --quiet --slo 99% --rules 1s/10s>5
LIST

	echo
	echo "| falsification end to end | time (s) | peak RSS (MB) | experiment windows falsified at margins 0, 0.05, 0.10, 0.20 |"
	echo "|---|---:|---:|---|"
	e2e="$d/e2e.duckdb"
	rm -f "$e2e" "$e2e.wal"
	cat "$log" >/dev/null
	measure "$rw" ingest --quiet --db "$e2e" --experiment bench "$log"
	is=$secs ir=$rss
	measure "$rw" analyze falsification --quiet --db "$e2e" --format csv
	counts=$(awk -F, 'NR > 1 { printf "%s%s", s, $5; s = ", " }' "$bin/out")
	printf '| rewind ingest + analyze falsification | %.2f | %s | %s |\n' "$(echo "$is + $secs" | bc -l)" "$((ir > rss ? ir : rss))" "$counts"
	cat "$log" >/dev/null
	measure node bench/falsification.mjs "$log"
	counts=$(awk '{ printf "%s%s", s, $5; s = ", " }' "$bin/out")
	printf '| the seed'"'"'s way: Node, JSON.parse per line (bench/falsification.mjs) | %s | %s | %s |\n' "$secs" "$rss" "$counts"
	hand="$d/hand.duckdb"
	rm -f "$hand"
	cat "$log" >/dev/null
	measure "$rw" sql --quiet --write --db "$hand" --format csv "$(hand_sql "$log")"
	counts=$(awk -F, 'NR > 1 { printf "%s%s", s, $5; s = ", " }' "$bin/out")
	printf '| one hand-written DuckDB query over the raw file | %s | %s | %s |\n' "$secs" "$rss" "$counts"
	rm -f "$hand" "$e2e" "$d"/duckdb-*.duckdb "$d/one.ndjson"
done
rm -rf "$bin"
