package ingest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/golden"
)

// The README's k6 walk-through runs on fixtures/k6/baseline.json and
// chaos.json: k6 --out json logs of one scenario at 10 requests/s for 30 s
// against a checkout endpoint, generated here (fixed seed) in the exact shape
// of the real k6 files under testdata/real/k6 (a Metric record before each
// metric's first point; http_reqs, http_req_duration, http_req_waiting and
// http_req_failed points of a request, stamped at its end). In chaos.json a
// fault from 12 s to 20 s makes 30 % of the requests fail with 503 and the
// rest slow. go test -run TestK6WalkthroughFixtures -update writes them.
func TestK6WalkthroughFixtures(t *testing.T) {
	for name, fault := range map[string]bool{"baseline": false, "chaos": true} {
		path := "../fixtures/k6/" + name + ".json"
		got := k6Fixture(fault)
		if golden.Updating() {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil || string(want) != got {
			t.Errorf("%s is not what the generator writes (go test -run TestK6WalkthroughFixtures -update): %v", path, err)
		}
	}
}

func k6Fixture(fault bool) string {
	rng := rand.New(rand.NewPCG(20261201, map[bool]uint64{false: 1, true: 2}[fault]))
	start := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	var b strings.Builder
	seen := map[string]bool{}
	metric := func(name, typ, contains string) {
		if !seen[name] {
			seen[name] = true
			fmt.Fprintf(&b, `{"type":"Metric","data":{"name":%q,"type":%q,"contains":%q,"thresholds":[],"submetrics":null},"metric":%q}`+"\n",
				name, typ, contains, name)
		}
	}
	for i := 0; i < 300; i++ {
		sent := start.Add(time.Duration(i)*100*time.Millisecond + time.Duration(rng.IntN(20_000))*time.Microsecond)
		latency := 80 + rng.Float64()*40
		status := 200
		if in := sent.Sub(start); fault && in >= 12*time.Second && in < 20*time.Second {
			latency += 250 + rng.Float64()*150
			if rng.IntN(10) < 3 {
				status = 503
			}
		}
		latency = float64(int64(latency*1e6)) / 1e6
		end := sent.Add(time.Duration(latency * float64(time.Millisecond))).Format(time.RFC3339Nano)
		expected := status < 400
		tags := fmt.Sprintf(`{"expected_response":"%t","group":"","method":"POST","name":"https://shop.test/checkout","proto":"HTTP/1.1","scenario":"checkout","status":"%d","url":"https://shop.test/checkout"}`,
			expected, status)
		point := func(name string, v float64) {
			fmt.Fprintf(&b, `{"type":"Point","data":{"time":%q,"value":%s,"tags":%s},"metric":%q}`+"\n", end, record.FormatFloat(v), tags, name)
		}
		metric("http_reqs", "counter", "default")
		point("http_reqs", 1)
		metric("http_req_duration", "trend", "time")
		point("http_req_duration", latency)
		metric("http_req_waiting", "trend", "time")
		point("http_req_waiting", float64(int64(latency*0.9*1e6))/1e6)
		metric("http_req_failed", "rate", "default")
		point("http_req_failed", map[bool]float64{true: 0, false: 1}[expected])
	}
	return b.String()
}
