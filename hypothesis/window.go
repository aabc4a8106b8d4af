package hypothesis

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Window is a window size: a number of requests (count windows follow
// request order) or a duration (duration windows follow t_ms).
type Window struct {
	N  int64   // requests per window; 0 when a duration
	Ms float64 // window length in ms; 0 when a count
}

// ParseWindow reads "40" (requests) or "1s", "250ms" (a duration).
func ParseWindow(s string) (Window, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n <= 0 {
			return Window{}, fmt.Errorf("window %q: want a positive number of requests", s)
		}
		return Window{N: n}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return Window{}, fmt.Errorf("window %q: want a number of requests (40) or a duration (1s, 250ms)", s)
	}
	return Window{Ms: float64(d) / float64(time.Millisecond)}, nil
}

func (w Window) String() string {
	if w.N > 0 {
		return strconv.FormatInt(w.N, 10)
	}
	return (time.Duration(w.Ms * float64(time.Millisecond))).String()
}

// IsZero reports an unset window.
func (w Window) IsZero() bool { return w.N == 0 && w.Ms == 0 }

// args returns the macro arguments size_n and size_ms.
func (w Window) SQLArgs() (any, any) {
	if w.N > 0 {
		return w.N, nil
	}
	return nil, w.Ms
}

// ParseLongDuration reads a Go duration that may also count days ("3d",
// "1d12h"), as k6's and the SRE workbook's windows are written.
func ParseLongDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	days, rest, ok := strings.Cut(s, "d")
	if !ok {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration (10s, 5m, 1h, 3d)", s)
		}
		return d, nil
	}
	n, err := strconv.ParseUint(days, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (10s, 5m, 1h, 3d)", s)
	}
	d := time.Duration(n) * 24 * time.Hour
	if rest != "" {
		r, err := time.ParseDuration(rest)
		if err != nil || r < 0 {
			return 0, fmt.Errorf("%q is not a duration (10s, 5m, 1h, 3d)", s)
		}
		d += r
	}
	return d, nil
}
