# bench/icount.sh's comparison: the baseline (NAME COUNT REASON lines, net
# of start-up; read_baseline has checked them) first, then the raw counts
# measured (NAME COUNT). Prints a Markdown table, a line per verdict and
# "icount: N passed, M failed"; exits 1 when mode is check and a count grew
# more than 10 % (or has no baseline line). In mode update it writes the
# new baseline to out: a line that moved more than 1 % (or is new) takes
# the new count and reason, the others stay as they were. Counts are
# compared as integers scaled by 10 or 100 (no rounding up to 2^53).
FILENAME == ARGV[1] {
	line[++nl] = $0
	if ($0 ~ /^#/ || $0 ~ /^[ \t]*$/) next
	old[$1] = $2
	at[$1] = nl
	next
}
{ raw[$1] = $2; order[++nc] = $1 }
END {
	if (!("startup" in raw)) { print "icount: no startup count among the counts" > "/dev/stderr"; exit 1 }
	print "| command | baseline | now | change |"
	print "|---|---:|---:|---:|"
	for (i = 1; i <= nc; i++) {
		name = order[i]
		now = raw[name] - (name == "startup" ? 0 : raw["startup"])
		if (!(name in old)) {
			printf "| %s | - | %.0f | new |\n", name, now
			if (mode == "check") {
				fail++
				msg = msg sprintf("icount: %s: no line in %s (add it: bench/icount.sh --update REASON)\n", name, bfile)
			} else pass++
			add[++na] = sprintf("%s %.0f %s", name, now, reason)
			continue
		}
		o = old[name]
		pct = (now - o) * 100 / o
		printf "| %s | %.0f | %.0f | %+.1f %% |\n", name, o, now, pct
		if (mode == "update" && ((now - o) * 100 > o || (o - now) * 100 > o))
			line[at[name]] = sprintf("%s %.0f %s", name, now, reason)
		if (now * 10 > o * 11) {
			fail++
			msg = msg sprintf("icount: %s: %.0f -> %.0f instructions (%+.1f %%), more than 10 %% over the baseline (%s:%d)\n", name, o, now, pct, bfile, at[name])
		} else {
			pass++
			if (now * 10 < o * 9)
				msg = msg sprintf("icount: note: %s: %.0f -> %.0f instructions (%+.1f %%), more than 10 %% fewer: record it with bench/icount.sh --update REASON\n", name, o, now, pct)
		}
	}
	printf "%s", msg
	if (mode == "update") {
		if (nl == 0) {
			print "# bench/icount.sh's baseline: NAME INSTRUCTIONS REASON (why the line last changed)." > out
			print "# Instructions under cachegrind, net of start-up (startup: an empty query, whole)." > out
		}
		for (i = 1; i <= nl; i++) print line[i] > out
		for (i = 1; i <= na; i++) print add[i] > out
		close(out)
		printf "icount: %s rewritten (lines that moved more than 1 %% or are new: \"%s\")\n", bfile, reason
		printf "icount: %d measured\n", pass + fail
		exit 0
	}
	printf "icount: %d passed, %d failed\n", pass, fail
	exit (mode == "check" && fail > 0)
}
