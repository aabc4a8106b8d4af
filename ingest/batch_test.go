package ingest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// The batcher appends runs of nulls at once: every cell of every cut batch
// is still the row's value or null, whatever the pattern of absent columns
// (runs across a cut, a column absent for a whole batch, present on every
// row), and every column of a batch has its rows.
func TestBatcherNullRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(20261201, 31))
	bt := newBatcher()
	defer bt.release()
	type want struct {
		run     *string
		req     *int64
		latency *float64
	}
	var rows []want
	check := func() {
		t.Helper()
		rb := bt.flush()
		if rb == nil {
			return
		}
		defer rb.Release()
		for c := range int(rb.NumCols()) {
			if got := rb.Column(c).Len(); got != len(rows) {
				t.Fatalf("column %d: %d rows, want %d", c, got, len(rows))
			}
		}
		run := rb.Column(colRun).(*array.String)
		req := rb.Column(colReq).(*array.Int64)
		lat := rb.Column(colLatency).(*array.Float64)
		for i, w := range rows {
			if (w.run == nil) != run.IsNull(i) || w.run != nil && *w.run != run.Value(i) {
				t.Fatalf("row %d: run %v, want %v", i, run.ValueStr(i), w.run)
			}
			if (w.req == nil) != req.IsNull(i) || w.req != nil && *w.req != req.Value(i) {
				t.Fatalf("row %d: req %v, want %v", i, req.ValueStr(i), w.req)
			}
			if (w.latency == nil) != lat.IsNull(i) || w.latency != nil && *w.latency != lat.Value(i) {
				t.Fatalf("row %d: latency %v, want %v", i, lat.ValueStr(i), w.latency)
			}
		}
		rows = rows[:0]
	}
	for i := range 3*batchRows + 17 {
		var x row
		x.reset(int64(i + 1))
		var w want
		// long runs of absence (a phase of the file) and short ones
		phase := (i / 5000) % 4
		if phase != 1 && r.IntN(3) > 0 {
			x.run = fmt.Sprintf("r%d", r.IntN(9))
			x.set(colRun)
			w.run = &x.run
		}
		if phase != 2 && r.IntN(2) == 0 {
			x.req = r.Int64N(1000)
			x.set(colReq)
			w.req = &x.req
		}
		if phase == 3 {
			x.latency = float64(i)
			x.set(colLatency)
			w.latency = &x.latency
		}
		bt.append(&x)
		rows = append(rows, w)
		if bt.full() || r.IntN(40000) == 0 {
			check()
		}
	}
	check()
}
