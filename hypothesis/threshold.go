package hypothesis

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// DefaultTolerance is stop-damage's, replay's and watch's threshold for a
// metric that takes no margin.
const DefaultTolerance = "20%"

// CheckMargin accepts shares in [0, 1) with at most 6 decimals: the SQL
// compares in millionths, so a finer margin would be rounded.
func CheckMargin(m float64) error {
	s := DecimalLit(m)
	_, frac, _ := strings.Cut(s, ".")
	if m < 0 || m >= 1 || len(frac) > 6 {
		return fmt.Errorf("margin %s: want a share in [0, 1) with at most 6 decimals, e.g. 0.05", strconv.FormatFloat(m, 'g', -1, 64))
	}
	return nil
}

// DecimalLit writes a margin as an exact SQL decimal literal: the shortest
// decimal that reads back as the same float, so 0.1 is 0.1 and not
// 0.1000000000000000055.
func DecimalLit(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// DefaultMargin is the margin below the baseline that a share metric
// (ok_share, error_rate) is judged by when none is given or stored.
const DefaultMargin = 0.10

// DefaultMarginRat is DefaultMargin, exactly.
func DefaultMarginRat() *big.Rat {
	r, _ := new(big.Rat).SetString(DecimalLit(DefaultMargin))
	return r
}

// Threshold chooses the bound a metric is judged by from what was given:
// the bound itself; else, for a share metric, a margin (margin as given or
// stored, in its exact decimal text; "" is DefaultMargin); else
// DefaultTolerance. analyze stop-damage, report, replay and watch all
// choose through it.
func Threshold(metric string, bound *Bound, margin string) (Bound, error) {
	switch {
	case bound != nil:
		return *bound, nil
	case MetricUnit(metric) != "share":
		return ParseBound("tolerance", DefaultTolerance, metric)
	case margin == "":
		margin = DecimalLit(DefaultMargin)
	}
	return ParseBound("margin", margin, metric)
}
