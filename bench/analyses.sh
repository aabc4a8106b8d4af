#!/usr/bin/env bash
# Analyses, warm: every analysis and replay --max on a generated chaos-shaped
# log, with the SQL library ("new", and "func": the analysis's Go function end
# to end) against the SQL it replaced ("old", the anchor in
# analyze/anchor_sql_test.go), medians of 3 runs in one process per size.
# The databases are kept in $TMPDIR/rewind-bench-analyses-SHAPE-ROWS (delete
# them to regenerate). Prints a Markdown table for the README.
# Usage: bench/analyses.sh [ROWS...]        (default: 1000000 10000000)
#   REWIND_BENCH_SHAPES="interleaved sequential" picks the log shapes.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="-buildvcs=false -tags=duckdb_arrow"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)
shapes=${REWIND_BENCH_SHAPES:-interleaved sequential}
bin=$(mktemp -d)/rewind-analyze.test
go test -c -o "$bin" ./analyze
run() { # rows shape benchtime filter
	REWIND_BENCH_ROWS=$1 REWIND_BENCH_SHAPE=$2 "$bin" -test.run '^$' -test.bench "$4" -test.benchtime "$3" -test.timeout 2h |
		awk -v rows="$1" -v shape="$2" '/^BenchmarkAnalyses\// {
			split($1, p, "/"); sub(/-[0-9]+$/, "", p[3])
			for (i = 1; i < NF; i++) if ($(i+1) == "median-s") print rows, shape, p[2], p[3], $i }'
}
results=$(mktemp)
for n in "${sizes[@]}"; do
	for shape in $shapes; do
		if [ "$shape" = sequential ]; then # the shape matters to count windows only
			run "$n" "$shape" 3x 'Analyses/^(blast-radius|falsification|stop-damage|replay-max|replay-load)$' >>"$results"
		elif [ "$n" -gt 2000000 ]; then # the old sliding peak and burn rate take minutes here: once
			run "$n" "$shape" 3x 'Analyses/^(blast-radius|falsification|stop-damage|peaks|retries|amplification|replay-max|replay-load|falsification-p95|stop-damage-p99-max|falsification-split|replay-p95)$' >>"$results"
			run "$n" "$shape" 3x 'Analyses/^(peaks-sliding|burn-rate)$/^(new|func)$' >>"$results"
			run "$n" "$shape" 1x 'Analyses/^(peaks-sliding|burn-rate)$/^old$' >>"$results"
		else
			run "$n" "$shape" 3x 'Analyses' >>"$results"
		fi
	done
done
echo "| analysis | rows | log | old (s) | new (s) | new, Go function (s) |"
echo "|---|---:|---|---:|---:|---:|"
awk '{ k = $3 SUBSEP $1 SUBSEP $2; v[k, $4] = $5; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
	END { for (i = 1; i <= n; i++) { split(order[i], f, SUBSEP)
		printf "| %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[3],
			(order[i] SUBSEP "old") in v ? sprintf("%.3f", v[order[i], "old"]) : "-",
			(order[i] SUBSEP "new") in v ? sprintf("%.3f", v[order[i], "new"]) : "-",
			(order[i] SUBSEP "func") in v ? sprintf("%.3f", v[order[i], "func"]) : "-" } }' "$results"
rm -f "$results"
