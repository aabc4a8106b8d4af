package analyze

import (
	"regexp"
	"strconv"

	"github.com/rewind-dev/rewind/engine"
)

// sparkPlan is a blast-radius plan of the seeded form
// tag_hash(SEED, req) < SHARE (or <=) as Spark SQL columns: the select
// list that computes tag_hash of req as th (queries/tag_hash.sql, bit for
// bit, in BIGINT arithmetic: each 32-bit product is split at the
// multiplier's 16-bit halves, so none passes 2^48) and the predicate over
// th. Any other plan is not translated (ok false).
func sparkPlan(pred string) (cols, cond string, ok bool) {
	m := seededPlan.FindStringSubmatch(pred)
	if m == nil {
		return "", "", false
	}
	seed, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return "", "", false
	}
	share, err := strconv.ParseFloat(m[3], 64)
	if err != nil {
		return "", "", false
	}
	cols = "((req & 4294967295L) + 1L) & 4294967295L AS th_i, " +
		"(" + engine.Int(seed&0xffffffff) + " ^ " + imul32("th_i", 2654435761) + ") AS th_0, " +
		imul32("(th_0 ^ shiftright(th_0, 16))", 2246822507) + " AS th_1, " +
		imul32("(th_1 ^ shiftright(th_1, 13))", 3266489909) + " AS th_2, " +
		"(th_2 ^ shiftright(th_2, 16)) / 4294967296D AS th"
	return cols, "th " + m[2] + " " + engine.Double(share), true
}

// seededPlan is tag_hash(SEED, req) < SHARE, the form the chaos seed's
// plans take.
var seededPlan = regexp.MustCompile(`^\s*tag_hash\(\s*(-?[0-9]+)\s*,\s*req\s*\)\s*(<=|<)\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*$`)

// imul32 is (a * m) mod 2^32 for a and m below 2^32, in BIGINT without
// overflow: a * (m mod 2^16) + ((a * (m div 2^16)) mod 2^16) * 2^16.
func imul32(a string, m int64) string {
	lo, hi := strconv.FormatInt(m&0xffff, 10), strconv.FormatInt(m>>16, 10)
	return "((" + a + " * " + lo + "L + ((" + a + " * " + hi + "L) & 65535L) * 65536L) & 4294967295L)"
}
