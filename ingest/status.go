package ingest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/internal/param"
)

// DefaultOkStatus is what counts as ok where a format gives an HTTP status
// but no outcome: 2xx and 3xx. 0 (no response) and everything else is an
// error.
const DefaultOkStatus = "200-399"

// KnownOutcomes are the outcome values rewind's analyses give a meaning:
// ok is success, every other value counts as not ok. Values outside this
// list are loaded but reported, since they usually mean a mapping went
// wrong (a control run whose outcomes are all "true" has a 0 % ok share).
var KnownOutcomes = []string{"ok", "error", "timeout", "dropped", "rejected", "canceled"}

type statusRange struct{ lo, hi int }

// ParseStatusRanges checks an --ok-status value.
func ParseStatusRanges(s string) (int, error) {
	rs, err := parseStatusRanges(s)
	return len(rs), err
}

// parseStatusRanges reads "200-399" or "200-299,404": inclusive ranges of
// HTTP statuses, comma-separated. "" is the default.
func parseStatusRanges(s string) ([]statusRange, error) {
	if strings.TrimSpace(s) == "" {
		s = DefaultOkStatus
	}
	var out []statusRange
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err1 != nil || err2 != nil || a < 0 || b > 999 || a > b {
			return nil, param.Errorf("ok-status", "{ok-status} %q: want statuses or ranges such as 200-399 or 200-299,404", s)
		}
		out = append(out, statusRange{a, b})
	}
	return out, nil
}

// statusOutcomeSQL is the SQL expression that derives an outcome from the
// status column: ok inside the ranges, error outside, NULL without status.
func statusOutcomeSQL(rs []statusRange) string {
	var conds []string
	for _, r := range rs {
		conds = append(conds, fmt.Sprintf("status BETWEEN %d AND %d", r.lo, r.hi))
	}
	return fmt.Sprintf("CASE WHEN status IS NULL THEN NULL WHEN %s THEN 'ok' ELSE 'error' END", strings.Join(conds, " OR "))
}
