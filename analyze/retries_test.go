package analyze

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/sim/retry"
	"github.com/rewind-dev/rewind/store"
)

// TestRetriesTiny checks the hand-written log fixtures/retry/tiny.ndjson
// (affected interval 1000..2000 ms, stored with the experiment):
//
//	X: ops 1 (t 0, ok, 50 ms), 2 (t 1000, 503 then ok: 1340-1000 = 340 ms),
//	   3 (t 1500, timeout, timeout, 503: 2400-1500 = 900 ms), 4 (t 2000, 503,
//	   budget: 60 ms), 5 (t 1999.5, ok, 0.25 ms). Affected: 2, 3, 5 (1000 is
//	   in, 2000 is out), 2 of them ok. Latencies 0.25, 50, 60, 340, 900:
//	   p95 at rank 3.8 = 340 + 0.8·560 = 788, p99 at 3.96 = 877.6.
//	Y: ops 10 (t 0.1 + 0.2 ms: exactly 0.2 ms, not 0.20000000000000004) and
//	   11 (t 1200, 503, budget: 100 ms). Affected: 11, failed. p95 =
//	   0.2 + 0.95·99.8 = 95.01, p99 = 99.002.
//	Z: one op at 5000 ms: none affected, so no share.
func TestRetriesTiny(t *testing.T) {
	db := ingestedDB(t, "../fixtures/retry/tiny.ndjson")
	res, err := Retries(db, RetriesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		// run, requests, first_attempts, retries, budget_denied, affected_ops, affected_success, p95_ms, p99_ms
		{"X", int64(8), int64(5), int64(3), int64(1), int64(3), 2.0 / 3, 788.0, 877.6},
		{"Y", int64(2), int64(2), int64(0), int64(1), int64(1), 0.0, 95.01, 99.002},
		{"Z", int64(1), int64(1), int64(0), int64(0), int64(0), nil, 10.0, 10.0},
	}
	if diff := cmp.Diff(want, res.Rows); diff != "" {
		t.Errorf("retries (-want +got):\n%s", diff)
	}

	// The flag overrides the stored interval: [0, 1000) holds op 1 of X and
	// op 10 of Y, both ok; op 11 (1200 ms) is out.
	res, err = Retries(db, RetriesOptions{Affected: hypothesis.Span{FromMs: 0, ToMs: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for _, row := range res.Rows {
		got = append(got, []any{row[0], row[5], row[6]})
	}
	wantAff := [][]any{{"X", int64(1), 1.0}, {"Y", int64(1), 1.0}, {"Z", int64(0), nil}}
	if diff := cmp.Diff(wantAff, got); diff != "" {
		t.Errorf("affected 0s..1s (-want +got):\n%s", diff)
	}
}

// TestRetriesWholeRunByDefault: when neither the flag nor the experiment
// gives an affected interval, the whole run counts, and a note says so.
func TestRetriesWholeRunByDefault(t *testing.T) {
	db := ingestedDB(t, "../fixtures/peaks/sekil1.csv")
	r, err := Retries(db, RetriesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Retries(db, RetriesOptions{Affected: hypothesis.Span{FromMs: 8000, ToMs: 13001}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(whole.Rows, r.Rows); diff != "" {
		t.Errorf("default interval differs from the whole run (-whole +default):\n%s", diff)
	}
	want := []string{"no affected interval given or stored: the whole run (8s..13s) counts as affected; give --affected FROM..TO to narrow it"}
	if diff := cmp.Diff(want, r.SayNotes(asFlag)); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	// With a second experiment in the database (its times 2 s to 60 s),
	// the interval is still the experiment's own.
	other := filepath.Join(t.TempDir(), "other.ndjson")
	if err := os.WriteFile(other, []byte(`{"experiment":"other","run":"o","t_ms":2000,"outcome":"ok"}`+"\n"+`{"experiment":"other","run":"o","t_ms":60000,"outcome":"ok"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(context.Background(), db, ingest.Options{}, []string{other}); err != nil {
		t.Fatal(err)
	}
	again, err := Retries(db, RetriesOptions{Experiment: "sekil1"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(whole.Rows, again.Rows); diff != "" {
		t.Errorf("with a second experiment (-whole +default):\n%s", diff)
	}
	if diff := cmp.Diff(want, again.SayNotes(asFlag)); diff != "" {
		t.Errorf("notes with a second experiment (-want +got):\n%s", diff)
	}
}

// TestRetriesMatchSim runs the E03-B model, ingests its log, and checks that
// the SQL library recomputes the model's own summary exactly: every count,
// the success share and both peaks. The percentiles are checked exactly
// against DuckDB's interpolation applied to the model's operations (see
// duckQuantile), and exactly against the summary's, which interpolates the
// same way.
func TestRetriesMatchSim(t *testing.T) {
	for _, seed := range []uint64{42, 7, 1} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			cfg := retry.DefaultConfig()
			cfg.Seed = seed
			results := retry.Run(cfg, retry.Strategies())
			path := filepath.Join(t.TempDir(), "retry.ndjson")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := retry.WriteLog(f, cfg, results); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			db := ingestedDB(t, path)
			sums := retry.Summaries(cfg, results)
			got := sqlRows(t, db)
			if diff := cmp.Diff(simRows(sums, results), got); diff != "" {
				t.Errorf("SQL against the model (-sim +sql):\n%s", diff)
			}
			for i, s := range sums {
				for j, q := range []float64{s.P95Ms, s.P99Ms} {
					if sq := got[i][7+j].(float64); sq != q {
						t.Errorf("run %s: percentile %v from SQL, %v in the summary", s.Run, sq, q)
					}
				}
			}
		})
	}
}

// simRows lays the model's summaries out like retries' columns, then the
// 100 ms and 1 s peaks.
func simRows(sums []retry.Summary, results []retry.Result) [][]any {
	var rows [][]any
	for i, s := range sums {
		var lat []float64
		for _, op := range results[i].Ops {
			lat = append(lat, float64(op.End-op.Start)/float64(time.Millisecond))
		}
		rows = append(rows, []any{s.Run, int64(s.Requests), int64(s.FirstAttempts), int64(s.Retries),
			int64(s.BudgetDenied), int64(s.AffectedOps), s.AffectedSuccess,
			duckQuantile(lat, 0.95), duckQuantile(lat, 0.99), s.Peak100ms, s.Peak1s})
	}
	return rows
}

// duckQuantile is DuckDB's quantile_cont on DOUBLE: rank RN = (n-1)·q, and
// lo·(1-d) + hi·d between the closest ranks, d = RN - floor(RN). The
// conversions keep Go from fusing the multiply-add, which DuckDB does not.
func duckQuantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	rn := float64(len(s)-1) * q
	lo, hi := math.Floor(rn), math.Ceil(rn)
	if lo == hi {
		return s[int(lo)]
	}
	d := rn - lo
	return float64(s[int(lo)]*(1-d)) + float64(s[int(hi)]*d)
}
func sqlRows(t *testing.T, db store.Querier) [][]any {
	t.Helper()
	res, err := Retries(db, RetriesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	peaks, err := Peaks(db, PeaksOptions{ResolutionsMs: []int64{100, 1000}})
	if err != nil {
		t.Fatal(err)
	}
	cmpRes, err := ComparePeaks(peaks)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for i, row := range res.Rows {
		p := cmpRes.Rows[i]
		if p[0] != row[0] {
			t.Fatalf("row %d: retries has run %v, peaks %v", i, row[0], p[0])
		}
		rows = append(rows, append(row, p[1], p[2]))
	}
	return rows
}

// A plain number of ms is the double its text denotes, as a t_ms of that
// text is: through a duration in ns, 1700428442942 came back as
// 1700428442942.0002, and the operation sent at that very time fell out
// of the interval it opens.
func TestParseSpanEpochMsTie(t *testing.T) {
	texts := []string{"1700428442941.5", "1700428442942", "1700428442943", "1700428442944.25"}
	var log strings.Builder
	for i, x := range texts {
		log.WriteString(`{"run":"a","req":` + strconv.Itoa(i) + `,"t_ms":` + x + `,"latency_ms":1,"outcome":"ok"}` + "\n")
	}
	path := filepath.Join(t.TempDir(), "epoch.ndjson")
	if err := os.WriteFile(path, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	db := ingestedDB(t, path)
	span, err := hypothesis.ParseSpan(texts[1] + ".." + texts[3])
	if err != nil {
		t.Fatal(err)
	}
	for i, got := range []float64{span.FromMs, span.ToMs} {
		if want, _ := strconv.ParseFloat(texts[1+2*i], 64); got != want {
			t.Errorf("bound %d = %v, want %v", i, got, want)
		}
	}
	res, err := Retries(db, RetriesOptions{Affected: span})
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, c := range res.Columns {
		if c.Name == "affected_ops" {
			col = i
		}
	}
	if col < 0 || len(res.Rows) != 1 || res.Rows[0][col] != int64(2) {
		t.Fatalf("affected_ops in %v = %v, want 2 (the ops at ...942 and ...943; ...944.25 is the open end)", res.Columns, res.Rows)
	}
	// The whole run's note names bounds that --affected reads back.
	whole, err := Retries(db, RetriesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if notes := whole.SayNotes(asFlag); len(notes) != 1 || !strings.Contains(notes[0], "("+texts[0]+".."+texts[3]+")") {
		t.Fatalf("notes %q, want the run's bounds %s..%s", notes, texts[0], texts[3])
	}
}

// With no affected interval, retries reads the whole run from NULL bounds
// (retriesQuery's whole: each start's validity, not two comparisons); the
// rows must equal those of the explicit interval from the first start to
// one ms past the last, plain and --by, on a log with retries, rows
// without req and rows without a start (which count in no interval).
func TestRetriesWholeRunBounds(t *testing.T) {
	var b strings.Builder
	for i := range 600 {
		run, t0 := []string{"a", "b"}[i%2], 1000+i*7
		switch {
		case i%50 == 3:
			fmt.Fprintf(&b, `{"run":%q,"attempt":0,"latency_ms":%d,"outcome":"ok","method":"GET"}`+"\n", run, i%40) // no start
		case i%30 == 5:
			fmt.Fprintf(&b, `{"run":%q,"t_ms":%d.25,"latency_ms":%d,"outcome":"ok","method":"PUT"}`+"\n", run, t0, i%40) // no req
		default:
			fmt.Fprintf(&b, `{"run":%q,"req":%d,"attempt":0,"t_ms":%d,"latency_ms":%d,"outcome":%q,"method":"GET"}`+"\n", run, i, t0, i%90, []string{"ok", "503"}[i%4/3])
			if i%4 == 3 {
				fmt.Fprintf(&b, `{"run":%q,"req":%d,"attempt":1,"t_ms":%d.5,"latency_ms":%d,"outcome":"ok","method":"PUT"}`+"\n", run, i, t0+100, i%60)
			}
		}
	}
	db := logsDB(t, b.String())
	var lo, hi float64
	if err := db.QueryRow(`SELECT min(t_ms), max(t_ms) FROM requests`).Scan(&lo, &hi); err != nil {
		t.Fatal(err)
	}
	for _, by := range [][]string{nil, {"method"}} {
		def, err := Retries(db, RetriesOptions{By: by})
		if err != nil {
			t.Fatal(err)
		}
		span, err := Retries(db, RetriesOptions{By: by, Affected: hypothesis.Span{FromMs: lo, ToMs: hi + 1}})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(span.Rows, def.Rows); d != "" || len(def.Notes) != 1 || len(def.Rows) < 2 {
			t.Errorf("by %v: the whole run from NULL bounds against %v..%v ms (-span +whole):\n%s%v", by, lo, hi+1, d, def.Notes)
		}
		if aff := def.Rows[0][def.Col("affected_ops")].(int64); aff < 200 || aff >= 300+50 {
			t.Errorf("by %v: %d affected operations in run a, want its operations with a start", by, aff)
		}
	}
}
