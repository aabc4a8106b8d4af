package analyze

import (
	"fmt"
	"testing"

	"github.com/rewind-dev/rewind/store"
)

// queries/gate.sql over overlapping windows equals a direct count and
// quantile_disc's nearest rank per window, on its grid path (edges on a
// 500 ms grid; rows at t = 1000 exactly sit on edges) and on its range-join
// path (an edge off the µs); a row with count 3 weighs as three rows.
func TestGateWindowsSQL(t *testing.T) {
	for _, lists := range []string{
		"[0, 1000, 1500, 5000, 19000, 25000, -500]::DOUBLE[], [2000, 6000, 1500, 12000, 20000, 26000, 1000]::DOUBLE[]",
		"[0, 1000.0004, 5000]::DOUBLE[], [2000, 6000, 12000]::DOUBLE[]",
	} {
		gateWindowsCase(t, lists)
	}
}

func gateWindowsCase(t *testing.T, lists string) {
	want := `WITH w AS (SELECT generate_subscripts(f, 1) AS w, unnest(f) AS f, unnest(u) AS u FROM (SELECT ` + lists + `) l(f, u)),
		r AS (SELECT w.w, round(latency_ms * 1000)::BIGINT AS lat_us, outcome FROM requests JOIN w ON t_ms >= w.f AND t_ms < w.u WHERE role = 'experiment')
		SELECT w.w, count(r.w), count(r.w) FILTER (WHERE outcome = 'ok'), count(r.lat_us),
		       quantile_disc(r.lat_us, [0.5, 0.9, 0.95, 0.99, 0.999, 1.0]::DECIMAL(4, 3)[])::VARCHAR
		FROM w LEFT JOIN r ON r.w = w.w GROUP BY w.w ORDER BY w.w`
	got := fmt.Sprintf(`SELECT "window", requests, ok, lat_n, CASE WHEN lat_n > 0 THEN [p50_us, p90_us, p95_us, p99_us, p999_us, max_us]::VARCHAR END
		FROM gate('a', 'experiment', %s)`, lists)
	read := func(db store.Querier, q string) string {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var s string
		for rows.Next() {
			var w, n, ok, latN int64
			var qs *string
			if err := rows.Scan(&w, &n, &ok, &latN, &qs); err != nil {
				t.Fatal(err)
			}
			q := "-"
			if qs != nil {
				q = *qs
			}
			s += fmt.Sprintf("%d:%d/%d/%d %s\n", w, n, ok, latN, q)
		}
		return s
	}
	plain := logsDB(t, judgeLog(3, false))
	a, b := read(plain, got), read(plain, want)
	if a != b {
		t.Fatalf("gate() differs from the direct count:\n%s\nwant\n%s", a, b)
	}
	if c := read(logsDB(t, judgeLog(3, true)), got); c != a {
		t.Errorf("count 3 does not weigh as three rows:\n%s\n%s", c, a)
	}
}
