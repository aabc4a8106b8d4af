# Sourced by bench/icount.sh (and its self-test, bench/icount_test.sh): the
# commands the gate counts, how one is counted, and the baseline's reading,
# comparison and rewriting.

# commands: NAME|ARGS, longest first (the pool starts them in this order).
# ARGS are read as shell words, with $DB (the analyses' database, ingested
# from $LOG/control.ndjson) and $WORK expanded. The --by variants are
# bench/by.sh's; judge and amplification take its step and tick.
commands='ingest-clf|ingest --quiet --db "$WORK/clf.duckdb" --experiment bench "$LOG/access.log"
ingest-ndjson|ingest --quiet --db "$WORK/ndjson.duckdb" --experiment bench "$LOG/control.ndjson"
thresholds|analyze thresholds --quiet --db "$DB" -e bench --threshold "http_req_duration: p(95)<200"
peaks-sliding|analyze peaks --quiet --db "$DB" -e bench --resolutions 100ms,1s --sliding
burn-rate|analyze burn-rate --quiet --db "$DB" -e bench --slo 99% --rules "1s/10s>5"
burn-rate-by|analyze burn-rate --quiet --db "$DB" -e bench --slo 99% --rules "1s/10s>5" --by outcome,tagged
falsification-by|analyze falsification --quiet --db "$DB" -e bench --by outcome,tagged
stop-damage-by|analyze stop-damage --quiet --db "$DB" -e bench --by outcome,tagged
judge-by|analyze judge --quiet --db "$DB" -e bench --step 1s --by outcome,tagged
retries-by|analyze retries --quiet --db "$DB" -e bench --by outcome,tagged
amplification-by|analyze amplification --quiet --db "$DB" -e bench --tick 1s --by outcome,tagged
peaks-by|analyze peaks --quiet --db "$DB" -e bench --by outcome,tagged
replay-max|replay --quiet --db "$DB" -e bench --stop-after 2 --max --format json
replay-fast|replay --quiet --db "$DB" -e bench --fast
blast-radius|analyze blast-radius --quiet --db "$DB" -e bench
falsification|analyze falsification --quiet --db "$DB" -e bench
falsification-p95|analyze falsification --quiet --db "$DB" -e bench --metric p95 --window 1s --tolerance 20%
stop-damage|analyze stop-damage --quiet --db "$DB" -e bench
judge|analyze judge --quiet --db "$DB" -e bench --step 1s
retries|analyze retries --quiet --db "$DB" -e bench
amplification|analyze amplification --quiet --db "$DB" -e bench --tick 1s
peaks|analyze peaks --quiet --db "$DB" -e bench
omission|analyze omission --quiet --db "$DB" -e bench --rate 500/1s
changes|analyze changes --quiet --db "$DB" -e bench
gate-argo|analyze gate --quiet --db "$DB" -e bench --argo "$WORK/argo.yaml" --metric success-rate=ok_share,p95=p95
startup|sql --quiet --db "$DB" "SELECT 1"'

# argo is the gate's Argo template, BenchmarkGate's.
argo='kind: AnalysisTemplate
spec:
  metrics:
  - name: success-rate
    interval: 30s
    failureLimit: 3
    successCondition: result[0] >= 0.5
    provider: {prometheus: {query: "sum(rate(ok[1m])) / sum(rate(all[1m]))"}}
  - name: p95
    interval: 30s
    successCondition: result[0] < 100000
    provider: {prometheus: {query: "histogram_quantile(0.95, rate(b[1m]))"}}'

# single is the environment every counted process runs in: DuckDB on one
# thread (store.ThreadsEnv), Go on one P, no preemption signals (their
# timing is the clock's, not the program's).
single=(env REWIND_THREADS=1 GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1)

# measure_all ONLY OUT: builds rewind and genlog, writes the logs (once per
# ICOUNT_DIR), ingests the analyses' database natively, then counts every
# command matching ONLY (and startup), ICOUNT_JOBS at a time, into OUT as
# NAME COUNT lines. Fails when a command fails.
measure_all() {
	local only=$1 out=$2
	command -v valgrind >/dev/null || { echo "icount: valgrind is not installed (apt-get install valgrind)" >&2; return 1; }
	WORK=${ICOUNT_DIR:-${TMPDIR:-/tmp}/rewind-icount}
	LOG=$WORK/log-1000000
	DB=$WORK/analyses.duckdb
	mkdir -p "$WORK/vg" "$LOG"
	rm -f "$WORK"/vg/* "$WORK"/*.duckdb "$WORK"/*.duckdb.wal
	printf '%s\n' "$argo" >"$WORK/argo.yaml"
	echo "icount: building rewind and genlog" >&2
	go build -buildvcs=false -tags duckdb_arrow -o "$WORK/rewind" ./cmd/rewind
	go build -buildvcs=false -tags duckdb_arrow -o "$WORK/genlog" ./bench/genlog
	if [ ! -e "$LOG/complete" ]; then # written after both logs, so a run stopped midway writes them again
		"$WORK/genlog" -rows 1000000 -dir "$LOG" >/dev/null
		"$WORK/genlog" -rows 1000000 -format clf -dir "$LOG" >/dev/null
		: >"$LOG/complete"
	fi
	"${single[@]}" "$WORK/rewind" ingest --quiet --db "$DB" --experiment bench "$LOG/control.ndjson" >/dev/null
	local jobs=${ICOUNT_JOBS:-2} running=0 name args
	echo "icount: counting, $jobs at a time (valgrind: minutes)" >&2
	while IFS='|' read -r name args; do
		[ "$name" = startup ] || [ -z "$only" ] || [[ $name =~ $only ]] || continue
		measure_one "$name" "$args" &
		running=$((running + 1))
		if [ "$running" -ge "$jobs" ]; then
			wait -n || true
			running=$((running - 1))
		fi
	done <<<"$commands"
	wait
	if compgen -G "$WORK/vg/*.fail" >/dev/null; then
		return 1
	fi
	cat "$WORK/vg/startup.count" >"$out"
	while IFS='|' read -r name args; do
		[ "$name" = startup ] || [ ! -e "$WORK/vg/$name.count" ] || cat "$WORK/vg/$name.count"
	done <<<"$commands" >>"$out"
}

# measure_one NAME ARGS counts one command under cachegrind into
# $WORK/vg/NAME.count, or leaves NAME.fail and shows why.
measure_one() {
	local name=$1 vg=$WORK/vg/$1
	eval "set -- $2"
	rm -f "$WORK/$name.duckdb" "$WORK/$name.duckdb.wal" # an ingest's fresh database
	if "${single[@]}" valgrind --tool=cachegrind --cache-sim=no --trace-children=no \
		--cachegrind-out-file=/dev/null --log-file="$vg.log" "$WORK/rewind" "$@" >"$vg.out" 2>"$vg.err"; then
		awk -v n="$name" '/I +refs:/ { gsub(",", "", $NF); print n, $NF }' "$vg.log" >"$vg.count"
		[ -s "$vg.count" ] || { echo "icount: $name: no count in $vg.log" >&2 && : >"$vg.fail"; }
	else
		echo "icount: $name failed: rewind $*" >&2
		tail -n 5 "$vg.err" "$vg.log" >&2
		: >"$vg.fail"
	fi
}

# read_baseline FILE checks every line: NAME COUNT REASON, COUNT a positive
# whole number, a reason, each NAME once. A missing FILE is an empty
# baseline.
read_baseline() {
	[ -e "$1" ] || return 0
	awk -v f="$1" '
		/^#/ || /^[ \t]*$/ { next }
		NF < 3 { printf "%s:%d: %s: no reason (NAME COUNT REASON): a baseline line says why it last changed\n", f, FNR, $1; bad = 1; next }
		$2 !~ /^[1-9][0-9]*$/ { printf "%s:%d: %s: count \"%s\" is no positive whole number\n", f, FNR, $1, $2; bad = 1; next }
		$1 in seen { printf "%s:%d: %s: already on line %d\n", f, FNR, $1, seen[$1]; bad = 1; next }
		{ seen[$1] = FNR }
		END { exit bad }' "$1" >&2
}

# compare MODE BASELINE COUNTS REASON prints the table and the verdicts;
# check fails on a growth over 10 %, update rewrites BASELINE.
compare() {
	local mode=$1 base=$2 counts=$3 reason=$4 new rc=0 from=$2
	[ -e "$from" ] || from=/dev/null
	new=$(mktemp)
	awk -v mode="$mode" -v bfile="$base" -v reason="$reason" -v out="$new" \
		-f bench/icount_compare.awk "$from" "$counts" || rc=$?
	if [ "$mode" = update ] && [ $rc -eq 0 ]; then
		cat "$new" >"$base"
	fi
	rm -f "$new"
	return $rc
}
