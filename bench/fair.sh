#!/usr/bin/env bash
# Ingest against its fair anchors (issue 38 §2): rewind ingest of the NDJSON
# log (bench/genlog's chaos-shaped control.ndjson, --experiment bench) and of
# the nginx log (genlog -format clf: combined + $request_time
# $upstream_response_time) against DuckDB's own reader loading the same file
# into the same requests table with the line numbers, seq, run_pos, roles
# and times rewind computes (bench/fair/ndjson.sql, bench/fair/clf.sql), and
# the floor: DuckDB inserting the rows rewind wrote, no decoding
# (bench/fair/floor.sql). All through the same DuckDB (rewind sql --write:
# the driver rewind links), each into a fresh database, durable (the
# process ends after its checkpoint), timed by the shell's clock, in
# alternation in the same minutes: each round runs every REV's ingest, the
# anchor and the floor once, after reading the file into the page cache;
# the table gives the median of 3 rounds and the load average before each
# format's rounds. First, at 20,000 rows, the anchors' rows are checked
# equal to rewind's (bench/fair/check.sql): the script stops otherwise.
# Usage: bench/fair.sh [-ndjson ROWS] [-clf LINES] [REV...]
#   REV is a git revision (built from `git archive`) or "." (the work tree,
#   the default); the floor inserts the last REV's rows. Defaults: 10 M
#   NDJSON rows, 5 M CLF lines. Files go to $TMPDIR/rewind-fair.
set -euo pipefail
cd "$(dirname "$0")/.."
ndjson=10000000 clf=5000000
while [ $# -gt 0 ]; do
	case $1 in
	-ndjson) ndjson=$2 && shift 2 ;;
	-clf) clf=$2 && shift 2 ;;
	*) break ;;
	esac
done
revs=("$@")
[ ${#revs[@]} -gt 0 ] || revs=(.)
WORK=${TMPDIR:-/tmp}/rewind-fair
mkdir -p "$WORK/bin"
export GOFLAGS="-buildvcs=false -tags=duckdb_arrow"
for i in "${!revs[@]}"; do
	src=.
	if [ "${revs[$i]}" != . ]; then
		src=$WORK/src-$i
		rm -rf "$src" && mkdir -p "$src"
		git archive "${revs[$i]}" | tar -x -C "$src"
	fi
	(cd "$src" && go build -o "$WORK/bin/rewind-$i" ./cmd/rewind)
done
go build -o "$WORK/bin/genlog" ./bench/genlog
last=$((${#revs[@]} - 1))
rw=$WORK/bin/rewind-$last

# logs FORMAT ROWS: the generated file's path (written once per size)
logs() {
	local d=$WORK/$1-$2
	if [ "$1" = ndjson ]; then
		[ -s "$d/control.ndjson" ] || "$WORK/bin/genlog" -rows "$2" -dir "$d" >/dev/null
		echo "$d/control.ndjson"
	else
		[ -s "$d/access.log" ] || "$WORK/bin/genlog" -rows "$2" -format clf -dir "$d" >/dev/null
		echo "$d/access.log"
	fi
}

# ingest REV FORMAT FILE DB: rewind's ingest as the anchors assume it
ingest() {
	local flags=()
	[ "$2" = ndjson ] && flags=(--experiment bench)
	rm -f "$4" "$4.wal"
	"$WORK/bin/rewind-$1" ingest --quiet --db "$4" "${flags[@]}" "$3" >/dev/null
}

# sqlfile NAME KEY VALUE: bench/fair/NAME.sql with @KEY@ replaced
sqlfile() { sed "s#@$2@#$3#g" "bench/fair/$1.sql"; }

# anchor FORMAT FILE DB / floor SRC DB: DuckDB's side, in a fresh database
anchor() { rm -f "$3" "$3.wal" && "$rw" sql --quiet --write --db "$3" -- "$(sqlfile "$1" FILE "$2")" >/dev/null; }
floor() { rm -f "$2" "$2.wal" && "$rw" sql --quiet --write --db "$2" -- "$(sqlfile floor DB "$1")" >/dev/null; }

# timed CMD...: wall seconds of CMD, a function above (fails loudly)
timed() {
	local t0=$EPOCHREALTIME
	"$@" || { echo "fair: failed: $*" >&2 && exit 1; }
	printf '%.2f' "$(bc -l <<<"$EPOCHREALTIME - $t0")"
}

median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | sed -n 2p; }

for f in ndjson clf; do # the anchors' rows are rewind's
	small=$(logs $f 20000)
	ingest "$last" $f "$small" "$WORK/check-rewind.duckdb"
	anchor $f "$small" "$WORK/check-anchor.duckdb"
	diff=$("$rw" sql --quiet --write --db "$WORK/check-anchor.duckdb" --format csv -- "$(sqlfile check DB "$WORK/check-rewind.duckdb")" | tail -1)
	[ "$diff" = 0 ] || { echo "fair: the $f anchor's rows differ from rewind's in $diff rows" >&2 && exit 1; }
done

printf '| format | rows |'
printf ' rewind %s (s) |' "${revs[@]}"
printf ' anchor (s) | floor (s) | rewind %s (M rows/s) | anchor / rewind %s | floor / rewind %s | load average |\n' "${revs[$last]}" "${revs[$last]}" "${revs[$last]}"
printf '|---|---:|'
printf -- '---:|%.0s' "${revs[@]}"
printf -- '---:|---:|---:|---:|---:|---|\n'
for f in ndjson clf; do
	n=$ndjson
	[ $f = clf ] && n=$clf
	log=$(logs $f "$n")
	loads=""
	declare -A t=()
	for round in 1 2 3; do
		loads+="$(cut -d' ' -f1 /proc/loadavg) "
		for i in "${!revs[@]}"; do
			cat "$log" >/dev/null
			t[$i]+="$(timed ingest "$i" $f "$log" "$WORK/rewind-$i.duckdb") "
		done
		cat "$log" >/dev/null
		t[anchor]+="$(timed anchor $f "$log" "$WORK/anchor.duckdb") "
		t[floor]+="$(timed floor "$WORK/rewind-$last.duckdb" "$WORK/floor.duckdb") "
	done
	r=$(median "${t[$last]}") a=$(median "${t[anchor]}") fl=$(median "${t[floor]}")
	printf '| %s | %s |' $f "$n"
	for i in "${!revs[@]}"; do printf ' %s |' "$(median "${t[$i]}")"; done
	printf ' %s | %s | %.2f | %.2f | %.2f | %s|\n' "$a" "$fl" "$(bc -l <<<"$n / $r / 1000000")" "$(bc -l <<<"$a / $r")" "$(bc -l <<<"$fl / $r")" "$loads"
	unset t
	rm -f "$WORK"/*.duckdb "$WORK"/*.duckdb.wal
done
