package ingest

import (
	"context"
	"database/sql"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/clf"
)

// backendCase are the slacks of a recorded server log against the
// backend's own record (ingest/testdata/servers/recorder), in ms:
//   - before: how much earlier than the backend's arrival the server's
//     start may be: the proxy's own work before it connects (largest
//     measured, 16 ms, is varnishncsa's first request, which opens the
//     backend connection), plus lag, a clock the server reads late
//     (lighttpd's %t: its cached second lagged the end by up to 1.8 s);
//   - after: how much later: the rounding of a truncated time, 1 ms
//     (lighttpd's msec - %D came out up to 0.9 ms after the arrival);
//   - the latency at least the backend's handler time less 1 ms plus
//     the latency's unit, at most 100 ms above it (a first request's
//     connection setup took up to 83 ms).
const (
	backendBefore = 20.0
	backendAfter  = 1.0
	backendOver   = 100.0
)

// lagMs is a server's stale clock, or its own work before it calls the
// backend, measured (see backendCase): Tomcat's proxy.jsp opens a new
// connection to the backend for every request, and its start came up to
// 35 ms before the backend's arrival.
var lagMs = map[string]float64{"lighttpd": 2000, "tomcat": 30}

// TestServersAgainstBackend reads every recorded server log as a user
// would (testdata/real/SERVER/CASE: input.log with server.txt and
// log-format.txt, or detected) and holds each request to the backend's
// own record of it (backend.csv): its start within the server's
// resolution and the slacks above of the backend's arrival, its latency
// no less than the backend's handler time, its status the backend's, and
// every request once.
func TestServersAgainstBackend(t *testing.T) {
	cases, _ := filepath.Glob("testdata/real/*/*/backend.csv")
	if len(cases) == 0 {
		t.Fatal("no recorded server logs")
	}
	for _, rec := range cases {
		dir := filepath.Dir(rec)
		server := filepath.Base(filepath.Dir(dir))
		t.Run(server+"/"+filepath.Base(dir), func(t *testing.T) {
			input := filepath.Join(dir, "input.log")
			db, _ := openDB(t)
			res, err := Files(context.Background(), db, realOptions(input), []string{input})
			if err != nil {
				t.Fatal(err)
			}
			holdToBackend(t, db, rec, res[0].ResolutionMs, lagMs[server], latencyUnit(res[0]))
		})
	}
}

// holdToBackend holds the loaded requests to the backend's record rec:
// every request once, its start within [arrival - before - step - lag,
// arrival + after + step], its latency within [handler - 1 - unit,
// handler + over] ms, its status the backend's.
func holdToBackend(t *testing.T, db *sql.DB, rec string, step, lag, unit float64) {
	t.Helper()
	truth := readBackend(t, rec)
	rows := queryStrings(t, db, `SELECT concat_ws(',', regexp_extract(coalesce(attrs->>'path', attrs->>'url', attrs->>'client_url'), '/r/([0-9]+)$', 1),
		epoch_us(ts), coalesce(latency_ms::VARCHAR, ''), status) FROM requests`)
	seen := map[int]bool{}
	for _, r := range rows {
		f := strings.Split(r, ",")
		id, _ := strconv.Atoi(f[0])
		b, ok := truth[id]
		if id == 999999 || !ok {
			continue // the recorder's readiness probe
		}
		seen[id] = true
		startUs, _ := strconv.ParseInt(f[1], 10, 64)
		off := float64(startUs-b.arrivalUs) / 1000
		if off < -(backendBefore+step+lag) || off > backendAfter+step {
			t.Errorf("request %d starts %.3f ms from the backend's arrival, want within [-%g, %g]", id, off, backendBefore+step+lag, backendAfter+step)
		}
		if f[2] != "" {
			lat, _ := strconv.ParseFloat(f[2], 64)
			handler := float64(b.handlerUs) / 1000
			if lat < handler-1-unit || lat > handler+backendOver {
				t.Errorf("request %d: latency %g ms, the backend's handler took %g ms", id, lat, handler)
			}
		}
		if f[3] != strconv.Itoa(b.status) {
			t.Errorf("request %d: status %s, the backend's %d", id, f[3], b.status)
		}
	}
	if len(seen) != len(truth) {
		t.Errorf("%d of the backend's %d requests loaded", len(seen), len(truth))
	}
}

// latencyUnit is the step of a latency in whole units: 1 ms for the
// servers that write ms (Squid %tr, Traffic Server %<ttms>), else 0.
func latencyUnit(r Result) float64 {
	if r.Format == clf.SquidName || r.Format == clf.TrafficServerName || strings.Contains(r.Path, "squid/timed") || strings.Contains(r.Path, "trafficserver/timed") {
		return 1
	}
	return 0
}

type backendRec struct {
	arrivalUs, handlerUs int64
	status               int
}

func readBackend(t *testing.T, path string) map[int]backendRec {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]backendRec{}
	for _, r := range recs[1:] {
		id, _ := strconv.Atoi(r[0])
		a, _ := strconv.ParseInt(r[1], 10, 64)
		h, _ := strconv.ParseInt(r[2], 10, 64)
		s, _ := strconv.Atoi(r[3])
		out[id] = backendRec{a, h, s}
	}
	return out
}
