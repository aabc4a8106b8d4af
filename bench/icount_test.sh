#!/usr/bin/env bash
# Self-test of the instruction-count gate's verdicts (bench/icount.sh
# --counts, no valgrind): a count 20 % over a planted baseline fails the
# check naming the command, old, new and %; a drop of 20 % passes with a
# note; a line without a reason, or --update without one, is refused;
# --update rewrites only the lines that moved more than 1 %; the committed
# baseline reads and passes against its own counts. .ci/run runs it before
# the gate. Prints "icount_test: N passed" or the first failure (exit 1).
set -euo pipefail
cd "$(dirname "$0")/.."
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
passed=0
fail() {
	echo "icount_test: $1" >&2
	echo "--- output:" >&2
	cat "$t/out" >&2
	exit 1
}
# gate ARGS...: runs bench/icount.sh, its output in $t/out, its status in rc
gate() {
	rc=0
	bench/icount.sh "$@" >"$t/out" 2>&1 || rc=$?
}
expect() { # STATUS TEXT CASE
	[ "$rc" -eq "$1" ] || fail "$3: exit $rc, want $1"
	grep -qF -- "$2" "$t/out" || fail "$3: no \"$2\" in the output"
	passed=$((passed + 1))
}

# raw counts: startup 500 M, peaks 1.5 G (net 1 G), replay-max 2.5 G (net 2 G)
printf 'startup 500000000\npeaks 1500000000\nreplay-max 2500000000\n' >"$t/counts"
printf '# planted\nstartup 500000000 first\npeaks 1000000000 first\nreplay-max 2000000000 first\n' >"$t/same"
gate --check --baseline "$t/same" --counts "$t/counts"
expect 0 "icount: 3 passed, 0 failed" "unchanged counts"

# the baseline 20 % lower than what is measured: peaks grew 25 %
sed 's/^peaks 1000000000/peaks 800000000/' "$t/same" >"$t/lower"
gate --check --baseline "$t/lower" --counts "$t/counts"
expect 1 "icount: peaks: 800000000 -> 1000000000 instructions (+25.0 %), more than 10 % over the baseline ($t/lower:3)" "a planted lower baseline"
expect 1 "icount: 2 passed, 1 failed" "a planted lower baseline's summary"

# 10 % exactly is allowed; one instruction more is not
sed 's/^peaks 1000000000/peaks 909090909/' "$t/same" >"$t/edge"
gate --check --baseline "$t/edge" --counts "$t/counts"
expect 1 "icount: peaks: 909090909 -> 1000000000" "just over 10 %"
printf 'startup 500000000\npeaks 1499999999\nreplay-max 2500000000\n' >"$t/counts10"
gate --check --baseline "$t/edge" --counts "$t/counts10"
expect 0 "icount: 3 passed, 0 failed" "exactly 10 % over"

# a drop of 20 %: passes, with a note to record it
sed 's/^replay-max 2000000000/replay-max 2500000000/' "$t/same" >"$t/higher"
gate --check --baseline "$t/higher" --counts "$t/counts"
expect 0 "icount: note: replay-max: 2500000000 -> 2000000000 instructions (-20.0 %), more than 10 % fewer" "a drop"

# a command with no baseline line fails the check
grep -v '^replay-max' "$t/same" >"$t/short"
gate --check --baseline "$t/short" --counts "$t/counts"
expect 1 "icount: replay-max: no line in $t/short" "a missing line"

# a line without a reason is refused, naming file and line
sed 's/^peaks 1000000000 first/peaks 1000000000/' "$t/same" >"$t/noreason"
gate --check --baseline "$t/noreason" --counts "$t/counts"
expect 1 "$t/noreason:3: peaks: no reason" "a line without a reason"
cp "$t/same" "$t/keep"
gate --update "" --baseline "$t/keep" --counts "$t/counts"
expect 2 "--update needs a one-line REASON" "--update without a reason"
cmp -s "$t/same" "$t/keep" || fail "--update without a reason changed the baseline"

# --update: the line that moved 25 % takes the count and the reason, the
# others keep theirs (and their reason)
printf 'startup 504000000\npeaks 1504000000\nreplay-max 2504000000\n' >"$t/counts2"
cp "$t/lower" "$t/upd"
gate --update "peaks: a test plant" --baseline "$t/upd" --counts "$t/counts2"
expect 0 "icount: 3 measured" "--update"
printf '# planted\nstartup 500000000 first\npeaks 1000000000 peaks: a test plant\nreplay-max 2000000000 first\n' >"$t/want"
cmp -s "$t/want" "$t/upd" || { diff "$t/want" "$t/upd" >"$t/out" || true; fail "--update wrote another baseline (diff want got above)"; }
passed=$((passed + 1))

# the committed baseline reads, and passes against its own counts
st=$(awk '$1 == "startup" { print $2 }' bench/icount.baseline)
[ -n "$st" ] || fail "bench/icount.baseline has no startup line"
awk -v st="$st" '!/^#/ && NF { printf "%s %.0f\n", $1, $2 + ($1 == "startup" ? 0 : st) }' bench/icount.baseline >"$t/own"
gate --check --counts "$t/own"
expect 0 " failed" "the committed baseline"
grep -q "icount: [0-9]* passed, 0 failed" "$t/out" || fail "the committed baseline does not pass its own counts"

echo "icount_test: $passed passed"
