package analyze

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// judgeLog is a generated canonical log: both roles, latencies at 0.1 ms
// with many ties, a few failures, over 20 s. With weighted, every third
// request of the experiment is written once with count 3 instead of thrice.
func judgeLog(seed int64, weighted bool) string {
	rng := rand.New(rand.NewSource(seed))
	var b strings.Builder
	for _, run := range []string{"control", "experiment"} {
		for i := 0; i < 900; i++ {
			lat := float64(rng.Intn(400)) / 10
			outcome := "ok"
			if rng.Intn(20) == 0 {
				outcome = "error"
			}
			t := float64(i) * 20000 / 900
			n := 1
			if run == "experiment" && i%3 == 0 {
				n = 3
			}
			for k := 0; k < n; k++ {
				if weighted && k > 0 {
					break
				}
				count := ""
				if weighted && n > 1 {
					count = fmt.Sprintf(`,"count":%d`, n)
				}
				fmt.Fprintf(&b, `{"run":%q,"req":%d,"attempt":1,"t_ms":%g,"latency_ms":%g,"outcome":%q,"tagged":false%s}`+"\n",
					run, i*3+k, t, lat, outcome, count)
			}
		}
	}
	return b.String()
}

// The judge's steps equal a reading of the log written out one row per
// request: quantile_disc's nearest rank at every quantile, the mean and the
// error rate, step by step; and a row with count 3 weighs as three rows.
func TestJudgeStepsQuantiles(t *testing.T) {
	db := logsDB(t, judgeLog(7, false))
	const metrics = "['p50', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean', 'error_rate']"
	for _, c := range []struct{ step, w string }{
		{"step_ms := 1000", "floor(t_ms / 1000)::BIGINT"},
		{"step_ms := 7000", "floor(t_ms / 7000)::BIGINT"},
		{"step_ms := 10000", "floor(t_ms / 10000)::BIGINT"}, // counted per (step, latency) from 10 s
		{"step_n := 50", "(row_number() OVER (PARTITION BY role ORDER BY run, seq) - 1) // 50"},
	} {
		step := c.step
		want := `WITH r AS (
				SELECT role, ` + c.w + ` AS w, round(latency_ms * 1000)::BIGINT AS lat_us, outcome
				FROM requests),
			g AS (SELECT role, w + 1 AS step, quantile_disc(lat_us, [0.5, 0.9, 0.95, 0.99, 0.999, 1.0]::DECIMAL(4, 3)[]) AS q,
			             sum(lat_us)::DOUBLE / count(*) / 1000 AS mean, count(*) FILTER (WHERE outcome <> 'ok')::DOUBLE / count(*) AS er
			      FROM r GROUP BY ALL)
			SELECT unnest(['p50', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean', 'error_rate']) AS metric, role, step,
			       unnest([q[1] / 1000, q[2] / 1000, q[3] / 1000, q[4] / 1000, q[5] / 1000, q[6] / 1000, mean, er]) AS value
			FROM g`
		q := fmt.Sprintf(`SELECT count(*) FROM (
			(SELECT metric, role, step, value FROM judge('a', %s, metrics := %s) EXCEPT ALL (%s))
			UNION ALL
			((%s) EXCEPT ALL SELECT metric, role, step, value FROM judge('a', %s, metrics := %s)))`, step, metrics, want, want, step, metrics)
		var diff int64
		if err := db.QueryRow(q).Scan(&diff); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if diff != 0 {
			t.Errorf("%s: %d rows differ from quantile_disc", step, diff)
		}
	}
	var rows int64
	if err := db.QueryRow(`SELECT count(*) FROM judge('a', step_ms := 1000, metrics := ['p50']) WHERE value IS NOT NULL`).Scan(&rows); err != nil || rows != 40 {
		t.Fatalf("judge('a') has %d valued p50 steps (%v), want 20 a side", rows, err)
	}
	plain, weighted := logsDB(t, judgeLog(7, false)), logsDB(t, judgeLog(7, true))
	for _, step := range []string{"step_ms := 2000", "step_ms := 10000"} { // both ways of reading the steps
		q := `SELECT string_agg(metric || role || step || ':' || coalesce(value::VARCHAR, '-'), ' ' ORDER BY metric, role, step)
			FROM judge('a', ` + step + `, metrics := ` + metrics + `)`
		var a, b string
		if err := plain.QueryRow(q).Scan(&a); err != nil {
			t.Fatal(err)
		}
		if err := weighted.QueryRow(q).Scan(&b); err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Errorf("%s: count 3 does not weigh as three rows:\n%s\n%s", step, a, b)
		}
	}
}

// quantile_disc with a DECIMAL q is the nearest rank: the ceil(q n)-th
// smallest of n values (at least the 1st), ceil taken exactly (q n an
// integer picks that rank, not the next), with ties, at every quantile
// the judge and omission read. Their quantiles rest on it.
func TestQuantileDiscNearestRank(t *testing.T) {
	db := logsDB(t, judgeLog(1, false))
	rng := rand.New(rand.NewSource(3))
	perMille := []int{500, 900, 950, 990, 999, 1000}
	sizes := []int{1, 2, 3, 7, 10, 20, 100, 999, 1000, 1001, 2000, 4321}
	for _, n := range sizes {
		vals := make([]int, n)
		strs := make([]string, n)
		for i := range vals {
			vals[i] = rng.Intn(n/2 + 2) // ties
			strs[i] = fmt.Sprint(vals[i])
		}
		var got string
		q := `SELECT quantile_disc(v, [0.5, 0.9, 0.95, 0.99, 0.999, 1.0]::DECIMAL(4, 3)[])::VARCHAR FROM unnest([` + strings.Join(strs, ", ") + `]::BIGINT[]) t(v)`
		if err := db.QueryRow(q).Scan(&got); err != nil {
			t.Fatal(err)
		}
		sorted := append([]int(nil), vals...)
		slices.Sort(sorted)
		want := make([]string, len(perMille))
		for i, pm := range perMille {
			k := max(1, (pm*n+999)/1000)
			want[i] = fmt.Sprint(sorted[k-1])
		}
		if w := "[" + strings.Join(want, ", ") + "]"; got != w {
			t.Errorf("n = %d: quantile_disc %s, nearest rank %s", n, got, w)
		}
	}
}
