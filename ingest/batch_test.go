package ingest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rewind-dev/rewind/ingest/record"
)

// The batcher appends runs of nulls at once: every cell of every cut batch
// is still the row's value or null, whatever the pattern of absent columns
// (runs across a cut, a column absent for a whole batch, present on every
// row), and every column of a batch has its rows.
func TestBatcherNullRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(20261201, 31))
	bt := record.NewBuilder()
	defer bt.Release()
	type want struct {
		run     *string
		req     *int64
		latency *float64
	}
	var rows []want
	check := func() {
		t.Helper()
		rb := bt.Flush()
		if rb == nil {
			return
		}
		defer rb.Release()
		for c := range int(rb.NumCols()) {
			if got := rb.Column(c).Len(); got != len(rows) {
				t.Fatalf("column %d: %d rows, want %d", c, got, len(rows))
			}
		}
		run := rb.Column(record.ColRun).(*array.String)
		req := rb.Column(record.ColReq).(*array.Int64)
		lat := rb.Column(record.ColLatency).(*array.Float64)
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
	for i := range 3*record.BatchRows + 17 {
		var x record.Row
		x.Reset(int64(i + 1))
		var w want
		// long runs of absence (a phase of the file) and short ones
		phase := (i / 5000) % 4
		if phase != 1 && r.IntN(3) > 0 {
			x.Run = fmt.Sprintf("r%d", r.IntN(9))
			x.Set(record.ColRun)
			w.run = &x.Run
		}
		if phase != 2 && r.IntN(2) == 0 {
			x.Req = r.Int64N(1000)
			x.Set(record.ColReq)
			w.req = &x.Req
		}
		if phase == 3 {
			x.Latency = float64(i)
			x.Set(record.ColLatency)
			w.latency = &x.Latency
		}
		bt.Append(&x)
		rows = append(rows, w)
		if bt.Full() || r.IntN(40000) == 0 {
			check()
		}
	}
	check()
}
