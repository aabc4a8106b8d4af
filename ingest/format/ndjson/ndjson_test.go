package ndjson

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rewind-dev/rewind/ingest/record"
)

// TestNDJSONStopsWithChunksInFlight: when a chunk fails (or the caller
// cancels), the decoder returns, also when the splitter has queued a chunk
// in file order that no worker has taken yet. One worker makes that the
// usual case: while it decodes the chunk after the bad one, the splitter
// waits to hand it the next. Before the fix the merger waited for that
// chunk's result forever.
func TestNDJSONStopsWithChunksInFlight(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var b strings.Builder
	b.WriteString(`{"run":"r","outcome":"ok","latency_ms":"slow"}` + "\n")
	for b.Len() < 6*record.ChunkBytes {
		fmt.Fprintf(&b, `{"run":"r","req":%d,"outcome":"ok","latency_ms":%d.5}`+"\n", b.Len(), b.Len()%1000)
	}
	input := b.String()
	run := func(ctx context.Context) error {
		done := make(chan error, 1)
		go func() {
			done <- decodeNDJSON(strings.NewReader(input), new(collector), nil)(ctx, func(rb arrow.RecordBatch) error {
				rb.Release()
				return nil
			})
		}()
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			t.Fatal("the decoder did not return")
			return nil
		}
	}
	for i := range 20 {
		if err := run(context.Background()); err == nil || !strings.Contains(err.Error(), "1:") || !strings.Contains(err.Error(), "latency_ms") {
			t.Fatalf("run %d: got %v, want the first line's latency_ms", i, err)
		}
	}
	// the caller cancels while chunks are in flight
	good := strings.TrimPrefix(input, input[:strings.IndexByte(input, '\n')+1])
	input = good
	for i := range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Duration(i)*5*time.Millisecond, cancel)
		if err := run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled run %d: got %v, want nil or context.Canceled", i, err)
		}
		cancel()
	}
}
