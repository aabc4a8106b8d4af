package main

import (
	"testing"
	"time"
)

// TestReportDate: SOURCE_DATE_EPOCH fixes the footer's date; a value that
// is not whole seconds is refused rather than replaced by now.
func TestReportDate(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1796169600")
	if got, err := reportDate(); err != nil || !got.Equal(time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("reportDate() = %v, %v; want 2026-12-02T00:00:00Z", got, err)
	}
	for _, bad := range []string{"1796169600.5", "-1", "yesterday"} {
		t.Setenv("SOURCE_DATE_EPOCH", bad)
		if got, err := reportDate(); err == nil {
			t.Errorf("SOURCE_DATE_EPOCH=%q: got %v, want an error", bad, got)
		}
	}
	t.Setenv("SOURCE_DATE_EPOCH", "")
	if got, err := reportDate(); err != nil || time.Since(got) > time.Minute {
		t.Errorf("without SOURCE_DATE_EPOCH: %v, %v; want now", got, err)
	}
}
