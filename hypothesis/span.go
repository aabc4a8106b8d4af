package hypothesis

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Span is a time interval [FromMs, ToMs) in ms since the start of a run.
type Span struct {
	FromMs, ToMs float64
}

// IsZero reports an unset span.
func (s Span) IsZero() bool { return s == Span{} }

// String is the span as ParseSpan reads it back to the same bounds.
func (s Span) String() string { return FormatMs(s.FromMs) + ".." + FormatMs(s.ToMs) }

// ParseInstant reads a time from a run's start as a duration: a duration
// ("8.5s", "250ms") or a plain number of milliseconds ("8500").
func ParseInstant(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, ok, err := plainMs(s); ok {
		if err != nil {
			return 0, err
		}
		ns := n * float64(time.Millisecond)
		if math.Abs(ns) >= math.MaxInt64 { // out of time.Duration's range
			return 0, fmt.Errorf("%q ms is out of range", s)
		}
		return time.Duration(ns), nil
	}
	return time.ParseDuration(s)
}

// instantMs reads a time in ms as ParseSpan does: a plain number (plainMs),
// or a duration, exact to the ns and rounded once to a double.
func instantMs(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if n, ok, err := plainMs(s); ok {
		return n, err
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	return durationMs(d), nil
}

// plainMs reads s as a plain number of ms (ok false when it is none, a
// duration say). The number is the double its text denotes, the very value
// a t_ms of that text in a log holds, so a bound can tie with a logged time
// exactly (through a duration in ns, one epoch time in 16, such as
// 1700428442942, came back 0.0002 ms off). NaN and infinities are no time.
func plainMs(s string) (ms float64, ok bool, err error) {
	n, perr := strconv.ParseFloat(s, 64)
	if perr != nil {
		return 0, false, nil
	}
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, true, fmt.Errorf("%q is not a time", s)
	}
	return n, true, nil
}

// durationMs is d in ms, the double nearest to its exact value.
func durationMs(d time.Duration) float64 {
	ms, _ := new(big.Rat).SetFrac64(int64(d), int64(time.Millisecond)).Float64()
	return ms
}

// FormatMs names a time in ms so that ParseSpan reads it back to the same
// double: as a duration ("8.5s", "13.00025s") when it is below 10^9 ms
// (11.6 days) and a whole number of ns, else as the plain number of ms
// (epoch milliseconds such as 1700000000000.5, which a duration would
// print as 472222h13m20.0005s).
func FormatMs(ms float64) string {
	if math.Abs(ms) < 1e9 {
		if d := time.Duration(math.Round(ms * float64(time.Millisecond))); durationMs(d) == ms {
			return d.String()
		}
	}
	if math.Abs(ms) < 1e21 {
		return strconv.FormatFloat(ms, 'f', -1, 64)
	}
	return strconv.FormatFloat(ms, 'g', -1, 64)
}

// ParseSpan reads "FROM..TO", each side a duration or a plain number of
// ms, such as "5000ms..6000ms", "5s..6s" or "5000..6000".
func ParseSpan(s string) (Span, error) {
	from, to, ok := strings.Cut(strings.TrimSpace(s), "..")
	if !ok {
		return Span{}, fmt.Errorf("span %q: want FROM..TO, e.g. 5s..6s", s)
	}
	var ms [2]float64
	for i, part := range []string{from, to} {
		v, err := instantMs(part)
		if err != nil || v < 0 {
			return Span{}, fmt.Errorf("span %q: %q is not a duration (5s, 5000ms) or a number of ms", s, part)
		}
		ms[i] = v
	}
	if ms[1] <= ms[0] {
		return Span{}, fmt.Errorf("span %q: the end must come after the start", s)
	}
	return Span{FromMs: ms[0], ToMs: ms[1]}, nil
}
