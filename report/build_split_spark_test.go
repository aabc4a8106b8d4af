package report_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/internal/sparktest"
	"github.com/rewind-dev/rewind/report"
)

// The report with --baseline-until at an event builds on Spark as it does
// locally (the same text, JSON and HTML), over a real Chaos Toolkit
// journal and a load log of its seconds: a run split at the first
// action_start, and at an action named by type and subject. An event the
// experiment lacks fails with the local error's text. The analyses
// themselves: analyze's TestSplitAtEventOnSpark.
func TestReportSplitAtEventOnSpark(t *testing.T) {
	sparktest.URL(t)
	journal := "../ingest/testdata/real/chaostoolkit/redis-stop-completed/input.json"
	origin := time.Date(2025, 4, 26, 0, 12, 45, 0, time.UTC)
	_, db := buildFrom(t, ingest.Options{Experiment: "redis"}, report.Options{}, writeRedisLoad(t, origin), journal)
	r := remoteOf(t, db)
	for _, h := range []hypothesis.Hypothesis{
		{BaselineUntil: "action_start"},
		{BaselineUntil: "action_start:iniciar_container_redis", Treatment: "experiment", Metric: "error_rate"},
		{BaselineUntil: "rollback_start"},
	} {
		o := report.Options{Experiment: "redis", Version: "test", Window: hypothesis.Window{Ms: 500}, Hypothesis: h}
		if !compareReports(t, db, r, "redis split at "+h.BaselineUntil, o) {
			t.Errorf("the report split at %s was refused on Spark: want it built", h.BaselineUntil)
		}
	}
	if _, err := report.Build(db, report.Options{Experiment: "redis", Hypothesis: hypothesis.Hypothesis{BaselineUntil: "rollback_start"}}); err == nil ||
		!strings.Contains(err.Error(), "no such event") {
		t.Errorf("the report split at rollback_start: %v, want no such event", err)
	}
}
