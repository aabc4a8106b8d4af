package analyze

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/ingest"
)

// TestChangesRealFault reads a log written by a real nginx in front of a
// backend whose fault (a quarter of the answers 503, every answer 200 ms
// slower) started and ended at times it recorded (fixtures/changes,
// record.go). Every change found in every metric must be the fault's start
// or end, to within the log's time resolution plus one interval, and the
// error rate and each latency quantile must go up at the start and down at
// the end: found where it happened, and nothing in the healthy parts (the
// load is open-loop, so the throughput does not change).
func TestChangesRealFault(t *testing.T) {
	dir := "../fixtures/changes/"
	var truth struct {
		Start     int64  `json:"fault_start_unix_ms"`
		End       int64  `json:"fault_end_unix_ms"`
		LogFormat string `json:"log_format"`
	}
	b, err := os.ReadFile(dir + "truth.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &truth); err != nil {
		t.Fatal(err)
	}
	db := ingestedDB(t)
	if _, err := ingest.Files(context.Background(), db, ingest.Options{LogFormat: truth.LogFormat}, []string{dir + "access.log.gz"}); err != nil {
		t.Fatal(err)
	}
	r, err := Changes(db, ChangesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	iv, err := changesInterval(db, "access", 0)
	if err != nil {
		t.Fatal(err)
	}
	slack := float64(iv.ms) + math.Max(iv.resMs, 1)
	ups, downs := map[string]int{}, map[string]int{}
	for _, row := range r.Rows {
		dir, metric := row[r.Col("direction")], row[r.Col("metric")].(string)
		if row[r.Col("before")] == nil {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, row[r.Col("from_ts")].(string))
		if err != nil {
			t.Fatal(err)
		}
		ms := float64(at.UnixMilli())
		switch {
		case dir == "up" && math.Abs(ms-float64(truth.Start)) <= slack:
			ups[metric]++
		case dir == "down" && math.Abs(ms-float64(truth.End)) <= slack:
			downs[metric]++
		default:
			t.Errorf("%s %v at %s: not the fault's start (%s) or end (%s) within %g ms", metric, dir, at.Format(time.RFC3339Nano),
				time.UnixMilli(truth.Start).UTC().Format(time.RFC3339Nano), time.UnixMilli(truth.End).UTC().Format(time.RFC3339Nano), slack)
		}
	}
	for _, m := range []string{"error_rate", "p50", "p95", "p99"} {
		if ups[m] != 1 || downs[m] != 1 {
			t.Errorf("%s: %d changes up at the fault's start and %d down at its end, want 1 and 1", m, ups[m], downs[m])
		}
	}
}
