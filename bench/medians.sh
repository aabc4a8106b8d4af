# Sourced by the analysis benchmark scripts (judge.sh, gate.sh, omission.sh,
# by.sh): medians_table COLUMN BENCHMARK [ROWS...] builds analyze's test
# binary once, runs BENCHMARK (a testing.B whose sub-benchmarks report
# median-s) 3 times per size in one process, warm, and prints a Markdown
# table of each sub-benchmark's median. ROWS default: 10000000.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export GOFLAGS="-buildvcs=false -tags=duckdb_arrow"

medians_table() {
	local column=$1 bench=$2
	shift 2
	local sizes=("$@")
	[ ${#sizes[@]} -gt 0 ] || sizes=(10000000)
	local bin
	bin=$(mktemp -d)/rewind-analyze.test
	go test -c -o "$bin" ./analyze
	echo "| $column | rows | median (s) |"
	echo "|---|---:|---:|"
	for n in "${sizes[@]}"; do
		REWIND_BENCH_ROWS=$n "$bin" -test.run '^$' -test.bench "^$bench\$" -test.benchtime 3x -test.timeout 1h |
			awk -v rows="$n" -v b="$bench" '$1 ~ "^" b "/" { split($1, p, "/"); sub(/-[0-9]+$/, "", p[2])
				for (i = 1; i < NF; i++) if ($(i+1) == "median-s") printf "| %s | %s | %.3f |\n", p[2], rows, $i }'
	done
}
