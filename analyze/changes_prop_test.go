package analyze

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rewind-dev/rewind/store"
)

// changeLog describes a generated log: per second, a rate, an error share
// and a latency, the rate and the share jittered every 100 ms as real
// services are (so the counts are overdispersed), with an incident from incFrom to
// incUntil seconds that multiplies the error share and adds latency, and
// a rate step at rateAt seconds.
type changeLog struct {
	seconds           int
	rate, errShare    float64
	latMs             float64
	incFrom, incUntil int     // seconds; incFrom == incUntil: none
	incErr, incLatMs  float64 // the incident's error share and added latency
	rateAt            int     // second from which the rate is rate2; 0: none
	rate2             float64
	count             int64 // every row's count (2: the doubled log)
}

// rows writes the log as CSV rows run,t_ms,outcome,latency_ms,count from
// seed: the same seed gives the same requests whatever the count.
func (c changeLog) rows(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 39))
	var b strings.Builder
	b.WriteString("run,t_ms,outcome,latency_ms,count\n")
	for s := range c.seconds {
		rate, p, lat := c.rate, c.errShare, c.latMs
		if c.rateAt > 0 && s >= c.rateAt {
			rate = c.rate2
		}
		if s >= c.incFrom && s < c.incUntil {
			p, lat = c.incErr, lat+c.incLatMs
		}
		for tenth := range 10 {
			n := int(rate * (0.85 + 0.3*r.Float64()) / 10)
			pj := p * (0.6 + 0.8*r.Float64())
			for i := range n {
				t := float64(s)*1000 + float64(tenth)*100 + (float64(i)+r.Float64())*100/float64(n)
				outcome := "ok"
				if r.Float64() < pj {
					outcome = "error"
				}
				l := math.Round(lat*math.Exp(0.3*r.NormFloat64())*1000) / 1000
				fmt.Fprintf(&b, "R,%.3f,%s,%g,%d\n", t, outcome, l, c.count)
			}
		}
	}
	return b.String()
}

// insertChangeLog writes the log as experiment exp.
func insertChangeLog(t *testing.T, db *store.DB, exp, csv string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), exp+".csv")
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := db.Exec(`INSERT INTO requests (experiment, run, role, seq, attempt, t_ms, latency_ms, outcome, tagged, count, file_id, line)
		SELECT ?, run, '', row_number() OVER (), 0, t_ms, latency_ms, outcome, false, count, 0, row_number() OVER ()
		FROM read_csv(?, header = true, columns = {'run': 'VARCHAR', 't_ms': 'DOUBLE', 'outcome': 'VARCHAR', 'latency_ms': 'DOUBLE', 'count': 'BIGINT'})`, exp, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO experiments VALUES (?, NULL)`, exp); err != nil {
		t.Fatal(err)
	}
}

// segment is a row of Changes reduced to what the properties compare.
type segment struct {
	Metric      string
	From, Until int64
}

func segmentsOf(t *testing.T, r *Result) []segment {
	t.Helper()
	var out []segment
	for _, row := range r.Rows {
		out = append(out, segment{row[r.Col("metric")].(string), row[r.Col("from_ms")].(int64), row[r.Col("until_ms")].(int64)})
	}
	return out
}

func changesOf(t *testing.T, db store.Querier, exp string, intervalMs int64) *Result {
	t.Helper()
	r, err := Changes(db, ChangesOptions{Experiment: exp, IntervalMs: intervalMs})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A stationary log, however jittered from second to second, is one
// segment per metric: no change.
func TestChangesStationary(t *testing.T) {
	db := ingestedDB(t)
	for seed := range uint64(6) {
		exp := fmt.Sprintf("still%d", seed)
		insertChangeLog(t, db, exp, changeLog{seconds: 60 + 20*int(seed), rate: 150 + 50*float64(seed), errShare: 0.02, latMs: 8, count: 1}.rows(seed))
		got := segmentsOf(t, changesOf(t, db, exp, 0))
		for _, s := range got {
			if s.From != got[0].From && s.Metric != "throughput" || len(got) != 5 {
				t.Errorf("%s: a change in a stationary log: %v", exp, got)
				break
			}
		}
	}
}

// A step of known size at a known place is found there: errors 2 % → 20 %
// and latency +100 ms from 20 s to 40 s, and the rate doubled from 50 s.
func TestChangesStep(t *testing.T) {
	db := ingestedDB(t)
	c := changeLog{seconds: 70, rate: 200, errShare: 0.02, latMs: 8, incFrom: 20, incUntil: 40, incErr: 0.2, incLatMs: 100, rateAt: 50, rate2: 400, count: 1}
	insertChangeLog(t, db, "step", c.rows(1))
	r := changesOf(t, db, "step", 0)
	want := []segment{
		{"error_rate", 0, 20000}, {"error_rate", 20000, 40000}, {"error_rate", 40000, 70000},
		{"p50", 0, 20000}, {"p50", 20000, 40000}, {"p50", 40000, 70000},
		{"p95", 0, 20000}, {"p95", 20000, 40000}, {"p95", 40000, 70000},
		{"p99", 0, 20000}, {"p99", 20000, 40000}, {"p99", 40000, 70000},
		{"throughput", 1000, 50000}, {"throughput", 50000, 69000},
	}
	if diff := cmp.Diff(want, segmentsOf(t, r)); diff != "" {
		t.Fatalf("segments (-want +got):\n%s", diff)
	}
	value := func(i int) float64 { return r.Rows[i][r.Col("value")].(float64) }
	for _, v := range []struct {
		row    int
		lo, hi float64
		what   string
	}{{1, 0.17, 0.23, "error rate in the incident"}, {0, 0.015, 0.025, "error rate before"},
		{4, 100, 120, "p50 in the incident"}, {13, 380, 420, "throughput after the step"}} {
		if got := value(v.row); got < v.lo || got > v.hi {
			t.Errorf("%s: %g, want %g to %g", v.what, got, v.lo, v.hi)
		}
	}
}

// Doubling every count keeps the points: the same requests with count 2
// give the same segments (the binomial and Poisson deviances and their
// dispersions double alike).
func TestChangesDoubledCounts(t *testing.T) {
	db := ingestedDB(t)
	c := changeLog{seconds: 80, rate: 120, errShare: 0.03, latMs: 5, incFrom: 30, incUntil: 45, incErr: 0.12, incLatMs: 20, rateAt: 60, rate2: 180}
	for seed := range uint64(3) {
		c.count = 1
		one := fmt.Sprintf("one%d", seed)
		insertChangeLog(t, db, one, c.rows(seed))
		c.count = 2
		two := fmt.Sprintf("two%d", seed)
		insertChangeLog(t, db, two, c.rows(seed))
		// the interval is given: the default follows the rate, which doubles
		a, b := segmentsOf(t, changesOf(t, db, one, 1000)), segmentsOf(t, changesOf(t, db, two, 1000))
		if len(a) <= 5 {
			t.Errorf("seed %d: no change found, the property proves little: %v", seed, a)
		}
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("seed %d: segments (-count 1 +count 2):\n%s", seed, diff)
		}
	}
}

// The series' quantiles are read from counts per distinct latency; they
// must be quantile_disc's with a DECIMAL fraction, the interval's and the
// run's (the thresholds of over_p50..99), on logs whose latencies repeat
// (whole ms) and do not (µs).
func TestChangesSeriesQuantiles(t *testing.T) {
	db := ingestedDB(t)
	for seed := range uint64(4) {
		exp := fmt.Sprintf("q%d", seed)
		c := changeLog{seconds: 12, rate: 40 + 30*float64(seed), errShare: 0.1, latMs: 5 + 40*float64(seed%2), incFrom: 4, incUntil: 7, incErr: 0.3, incLatMs: 30, count: 1 + int64(seed%2)}
		insertChangeLog(t, db, exp, c.rows(seed))
		if seed%2 == 0 { // whole ms, and some rows without a latency
			if _, err := db.Exec(`UPDATE requests SET latency_ms = CASE WHEN seq % 17 = 0 THEN NULL ELSE round(latency_ms) END WHERE experiment = ?`, exp); err != nil {
				t.Fatal(err)
			}
		}
		for _, iv := range []int64{250, 1000, 3000} {
			var bad int64
			err := db.QueryRow(`WITH want AS (
				SELECT run, floor(t_ms / $2)::BIGINT AS k, quantile_disc(latency_ms, [0.5, 0.95, 0.99]::DECIMAL(4, 3)[]) AS q,
				       count(*) AS n
				FROM requests WHERE experiment = $1 GROUP BY ALL),
			th AS (SELECT run, quantile_disc(latency_ms, [0.5, 0.95, 0.99]::DECIMAL(4, 3)[]) AS q FROM requests WHERE experiment = $1 GROUP BY run),
			over AS (SELECT r.run, floor(r.t_ms / $2)::BIGINT AS k, sum(r.count) FILTER (WHERE r.latency_ms > th.q[1]) AS o50,
			                sum(r.count) FILTER (WHERE r.latency_ms > th.q[2]) AS o95, sum(r.count) FILTER (WHERE r.latency_ms > th.q[3]) AS o99
			         FROM requests r JOIN th USING (run) WHERE r.experiment = $1 GROUP BY ALL)
			SELECT count(*) FILTER (WHERE g.p50_ms IS DISTINCT FROM w.q[1] OR g.p95_ms IS DISTINCT FROM w.q[2] OR g.p99_ms IS DISTINCT FROM w.q[3]
			         OR g.over_p50 <> coalesce(o.o50, 0) OR g.over_p95 <> coalesce(o.o95, 0) OR g.over_p99 <> coalesce(o.o99, 0))
			       + abs(count(*) - (SELECT count(*) FROM want))
			FROM changes_series($1, $2) g JOIN want w USING (run, k) JOIN over o USING (run, k)`, exp, iv).Scan(&bad)
			if err != nil {
				t.Fatal(err)
			}
			if bad != 0 {
				t.Errorf("%s at %d ms: %d intervals whose quantiles or counts over the run's differ from quantile_disc's", exp, iv, bad)
			}
		}
	}
}
