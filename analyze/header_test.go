package analyze

import "testing"

// A heading names the unit once: where the column's name states it, the
// unit is not appended again (issue 28: "p95_ms (ms)").
func TestHeaderUnitOnce(t *testing.T) {
	for _, c := range []struct{ name, unit, want string }{
		{"p95_ms", "ms", "p95_ms"},
		{"resolution_ms", "ms", "resolution_ms"},
		{"peak_at_ms", "ms", "peak_at_ms"},
		{"worst_wait_s", "s", "worst_wait_s"},
		{"requests", "requests", "requests"},
		{"ok_share", "%", "ok_share"},
		{"share", "%", "share"},
		{"p95", "ms", "p95 (ms)"},
		{"peak_100ms", "requests", "peak_100ms (requests)"},
		{"peak_1s", "requests", "peak_1s (requests)"},
		{"items", "ms", "items (ms)"}, // ends in "s", not in "_s"
		{"baseline", "req/s", "baseline (req/s)"},
		{"window_calls_per_tick", "calls/tick", "window_calls_per_tick"},
		{"calls", "calls", "calls"},
		{"error_rate", "share", "error_rate (share)"},
		{"t", "", "t"},
	} {
		if got := Header(c.name, c.unit); got != c.want {
			t.Errorf("Header(%q, %q) = %q, want %q", c.name, c.unit, got, c.want)
		}
	}
}
