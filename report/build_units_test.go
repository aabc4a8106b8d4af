package report

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/store"
)

// TestBucketSteps: buckets 0, 1 and 4 of 100 ms. The empty buckets 2-3 are
// one zero at bucket 2 (it holds until bucket 4), and a last point closes
// bucket 4 at 0.5 s.
func TestBucketSteps(t *testing.T) {
	x, y := bucketSteps([]int64{0, 1, 4}, []float64{10, 20, 30}, 0.1)
	if diff := cmp.Diff([]float64{0, 0.1, 0.2, 0.4, 0.5}, x, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("x (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{10, 20, 0, 30, 30}, y); diff != "" {
		t.Errorf("y (-want +got):\n%s", diff)
	}
}

// TestBucketMiddles: values sit in the middle of their 5 s bucket, and the
// first empty bucket after bucket 1 is a gap.
func TestBucketMiddles(t *testing.T) {
	x, y := bucketMiddles([]int64{0, 1, 3}, []float64{1, 2, 3}, 5)
	if diff := cmp.Diff([]float64{2.5, 7.5, 12.5, 17.5}, x); diff != "" {
		t.Errorf("x (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{1, 2, math.NaN(), 3}, y, cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("y (-want +got):\n%s", diff)
	}
}

func TestDuration(t *testing.T) {
	for ms, want := range map[float64]string{100: "100 ms", 1000: "1 s", 1500: "1.5 s", 5000: "5 s",
		120_000: "2 min", 90_000: "90 s", 3_600_000: "1 h", 86_400_000: "1 d"} {
		if got := duration(ms); got != want {
			t.Errorf("duration(%v) = %q, want %q", ms, got, want)
		}
	}
}

// TestLatencyDotsThinnedInSQL: a run past maxDotRows is cut into dotSlices
// time slices whose fastest and slowest request per class are kept, so a
// spike survives and a rare error class keeps every dot.
func TestLatencyDotsThinnedInSQL(t *testing.T) {
	db := logsDB(t, `{"record":"experiment","experiment":"big"}`+"\n"+`{"run":"small","t_ms":0,"latency_ms":1,"outcome":"ok"}`+"\n")
	const n = 150_000
	if _, err := db.Exec(`INSERT INTO requests (experiment, run, role, seq, attempt, t_ms, latency_ms, outcome, tagged, count, file_id, line)
		SELECT 'big', 'big', '', 10 + i, 0, i, CASE WHEN i = 77777 THEN 5000 ELSE 10 + i % 7 END,
		       CASE WHEN i % 1000 = 0 THEN 'error' ELSE 'ok' END, false, 1, 1, 10 + i
		FROM range(?) r(i)`, n); err != nil {
		t.Fatal(err)
	}
	c, note, err := latencyDots(db, "big", "big", nil)
	if err != nil {
		t.Fatal(err)
	}
	if note == "" || len(c.Series) != 2 || c.Series[0].Name != "ok" || c.Series[1].Name != "error" {
		t.Fatalf("note %q, series %v: want a note and the ok and error series", note, seriesNamesOf(c))
	}
	ok, bad := c.Series[0], c.Series[1]
	if len(ok.X) > 2*dotSlices || len(ok.X) < dotSlices {
		t.Errorf("ok: %d dots, want between %d and %d", len(ok.X), dotSlices, 2*dotSlices)
	}
	if len(bad.X) != n/1000 {
		t.Errorf("error: %d dots, want all %d", len(bad.X), n/1000)
	}
	spike := false
	for i := range ok.X {
		spike = spike || ok.X[i] == 77.777 && ok.Y[i] == 5000
	}
	if !spike {
		t.Error("the 5000 ms spike at t = 77.777 s was thinned away")
	}
}

func seriesNamesOf(c Chart) []string {
	var out []string
	for _, s := range c.Series {
		out = append(out, s.Name)
	}
	return out
}

// logsDB writes each log to a file of its own and ingests them all.
func logsDB(t *testing.T, logs ...string) *store.DB {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "rewind.duckdb"), store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var paths []string
	for i, l := range logs {
		p := filepath.Join(dir, string(rune('a'+i))+".ndjson")
		if err := os.WriteFile(p, []byte(l), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	if _, err := ingest.Files(ctx, db, ingest.Options{}, paths); err != nil {
		t.Fatal(err)
	}
	return db
}
