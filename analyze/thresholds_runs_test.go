package analyze

import (
	"fmt"
	"strings"
	"testing"
)

// TestThRunsEnds: _th_runs reads each run's last end only from the rows
// sent after its cut (the earliest last send of the runs less the
// latencies' span); its runs are those of a pass over every request, as
// the rows' ends in ns give them. One log has a run whose last end is an
// early request's long latency (without the latencies in the cut, it would
// read 100 ms), one whose last send is not its last end, one without
// latencies and one at negative times sent out of order; the other a run
// of 150,000 rows over two row groups, the first skipped, whose last end is
// not its last send.
func TestThRunsEnds(t *testing.T) {
	row := func(b *strings.Builder, run string, req int, tms, lat string) {
		fmt.Fprintf(b, `{"run":%q,"req":%d,"attempt":0,"t_ms":%s,"latency_ms":%s,"outcome":"ok"}`+"\n", run, req, tms, lat)
	}
	// the earliest last send is long's: without the latencies' span its
	// cut would leave out the request that ends last
	var small strings.Builder
	row(&small, "long", 0, "10", "5000.000001")
	row(&small, "long", 1, "100", "1")
	row(&small, "late", 0, "190", "15")
	row(&small, "late", 1, "200", "0")
	row(&small, "nolat", 0, "300.001", "null")
	row(&small, "nolat", 1, "250", "null")
	row(&small, "early", 0, "150", "0.25")
	row(&small, "early", 1, "-90", "3")
	row(&small, "early", 2, "-20.5", "3")
	// row groups before the cut are skipped; the last end is not the last
	// send's
	var big strings.Builder
	for i := 0; i < 150_000; i++ {
		lat := "2.5"
		if i == 149_000 {
			lat = "40.5"
		}
		row(&big, "big", i, fmt.Sprintf("%d.%03d", i/100, i%100*7), lat)
	}
	for _, c := range []struct {
		log  string
		runs int
	}{{small.String(), 4}, {big.String(), 1}} {
		db := logsDB(t, c.log)
		var exp string
		if err := db.QueryRow(`SELECT any_value(experiment) FROM requests`).Scan(&exp); err != nil {
			t.Fatal(err)
		}
		const full = `SELECT run, round(min(t_ms) * 1e6)::BIGINT AS start_ns,
			max(round(t_ms * 1e6)::BIGINT + coalesce(round(latency_ms * 1e6)::BIGINT, 0)) - round(min(t_ms) * 1e6)::BIGINT AS last_ns
			FROM requests WHERE experiment = ? AND t_ms IS NOT NULL GROUP BY run`
		join := `FROM _th_runs(?, NULL) r FULL JOIN (` + full + `) f USING (run)`
		var n, same int
		if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE r.start_ns = f.start_ns AND r.last_ns = f.last_ns
			AND r.dur_ns = f.last_ns) `+join, exp, exp).Scan(&n, &same); err != nil {
			t.Fatal(err)
		}
		if n == c.runs && same == n {
			continue
		}
		rows, err := db.Query(`SELECT run, r.start_ns, r.last_ns, f.start_ns, f.last_ns `+join+` ORDER BY run`, exp, exp)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var run string
			var a, b, d, e any
			if err := rows.Scan(&run, &a, &b, &d, &e); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: _th_runs %v %v, every row %v %v", run, a, b, d, e)
		}
		rows.Close()
		t.Errorf("%d runs, %d as every row gives them (want %d)", n, same, c.runs)
	}
}
