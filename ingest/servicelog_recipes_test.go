package ingest

import (
	"fmt"
	"testing"
)

// The --map recipes of docs/formats/servers.md for services' JSON request
// logs, followed on logs the libraries wrote (testdata/services/README.md):
// with --time-is end each row starts at the service's own record of the
// request's start (its "start" field), to within what passes between the
// service reading the duration and the logger stamping the line, and keeps
// its status.
func TestServiceLoggersFollowRecipes(t *testing.T) {
	recipes := []struct{ logger, flags string }{
		{"zerolog", `--from ndjson --map ts='time' --map latency_ms='elapsed' --map status=status --time-is end --run service`},
		{"logrus", `--from ndjson --map ts='time' --map latency_ms='duration_ms' --map status=status --time-is end --run service`},
		{"structlog", `--from ndjson --map ts='timestamp' --map latency_ms='duration_ms' --map status=status --time-is end --run service`},
		{"python-json-logger", `--from ndjson --map ts='timestamp' --map latency_ms='duration_ms' --map status=status --time-is end --run service`},
	}
	for _, r := range recipes {
		t.Run(r.logger, func(t *testing.T) {
			db, _ := openDB(t)
			path := "testdata/services/" + r.logger + "/service.log"
			opts := followHint(t, "load it with "+r.flags, nil)
			if res := mustIngest(t, db, opts, path); res[0].Rows != 20 {
				t.Fatalf("%d rows, want 20", res[0].Rows)
			}
			// ts is stored in UTC; start carries the service's offset
			got := queryStrings(t, db, `SELECT concat_ws(' ', count(*),
				max(abs(epoch_us(ts) - epoch_us((attrs->>'start')::TIMESTAMPTZ))) < 1000,
				count(*) FILTER (WHERE status = 503), min(latency_ms) >= 3)
				FROM requests`)
			if want := "20 true 4 true"; fmt.Sprint(got) != "["+want+"]" {
				t.Errorf("rows, starts within 1 ms of the service's record, 503s, latencies: got %v, want %s", got, want)
			}
		})
	}
}
