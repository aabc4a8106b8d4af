package analyze

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestQuantileIsNearestRank checks the latency metrics of side_windows
// against a reference written from the definition, not from DuckDB's
// code: the q-quantile of n latencies is the smallest latency x such that
// at least q·n of them are <= x (counted exactly: count·den >= num·n), and
// max the largest. The windows have 1 to 60 latencies, with duplicates and
// values finer than a microsecond (read rounded, as the SQL reads them);
// the sizes include those where q·n is whole, where a float product would
// land either side.
func TestQuantileIsNearestRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261201, 7))
	sizes := []int{1, 2, 3, 4, 5, 10, 19, 20, 21, 40, 59, 60}
	var b strings.Builder
	var windows [][]int64 // microseconds, as read
	for _, n := range sizes {
		for range 3 {
			w := make([]int64, n)
			for i := range w {
				ms := float64(rng.IntN(2000)) / 10
				if rng.IntN(3) == 0 {
					ms += float64(rng.IntN(10)) / 10000
				}
				w[i] = int64(math.Round(ms * 1000))
				fmt.Fprintf(&b, `{"run":"r","role":"experiment","outcome":"ok","latency_ms":%v}`+"\n", ms)
			}
			windows = append(windows, w)
		}
	}
	// Count windows need equal sizes: give every window its own experiment.
	logs := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	var files []string
	at := 0
	for i, w := range windows {
		var f strings.Builder
		fmt.Fprintf(&f, `{"record":"experiment","experiment":"w%02d"}`+"\n", i)
		for _, l := range logs[at : at+len(w)] {
			f.WriteString(strings.Replace(l, `{"run"`, fmt.Sprintf(`{"experiment":"w%02d","run"`, i), 1) + "\n")
		}
		at += len(w)
		files = append(files, f.String())
	}
	db := logsDB(t, files...)
	qs := map[string][2]int64{"p50": {50, 100}, "p90": {90, 100}, "p95": {95, 100}, "p99": {99, 100}, "p99.9": {999, 1000}, "max": {1, 1}}
	for i, w := range windows {
		for metric, q := range qs {
			var got string
			err := db.QueryRow(fmt.Sprintf(`SELECT value_num::VARCHAR || '/' || value_den::VARCHAR
				FROM side_windows(?, role_name := 'experiment', size_n := %d, metric := '%s')`, len(w), metric),
				fmt.Sprintf("w%02d", i)).Scan(&got)
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("%d/1", nearestRankReference(w, q[0], q[1])); got != want {
				t.Errorf("window of %d, %s: side_windows says %s µs, the definition %s", len(w), metric, got, want)
			}
		}
	}
}

func nearestRankReference(xs []int64, num, den int64) int64 {
	s := slices.Sorted(slices.Values(xs))
	n := int64(len(s))
	for _, x := range s {
		le := int64(0)
		for _, y := range s {
			if y <= x {
				le++
			}
		}
		if le*den >= num*n {
			return x
		}
	}
	return s[n-1]
}
