package ingest

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rewind-dev/rewind/ingest/record"
)

// stream is an array.RecordReader fed by a decoder goroutine. DuckDB pulls
// batches from it while the decoder produces the next ones, so decoding and
// inserting overlap and memory stays at a few batches. When the decoder
// fails, Next returns false and Err names the bad line; the INSERT reading
// the stream then fails and the transaction rolls back.
type stream struct {
	schema *arrow.Schema
	ch     chan arrow.RecordBatch
	cur    arrow.RecordBatch
	// first is the batch peek took from ch, for Next to return first;
	// peeked says peek ran (ended: the decoder had no batch)
	first         arrow.RecordBatch
	peeked, ended bool
	mu            sync.Mutex
	err           error
	cancel        context.CancelFunc
	done          chan struct{}
	once          sync.Once
}

func newStream(ctx context.Context, schema *arrow.Schema, p record.Produce) *stream {
	ctx, cancel := context.WithCancel(ctx)
	s := &stream{schema: schema, ch: make(chan arrow.RecordBatch, 2), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer close(s.ch)
		// A decoder (ours or a library's) that panics on malformed input
		// fails the ingest with an error instead of the process.
		defer func() {
			if r := recover(); r != nil {
				s.mu.Lock()
				s.err = fmt.Errorf("malformed input: the decoder failed: %v", r)
				s.mu.Unlock()
			}
		}()
		err := p(ctx, func(rb arrow.RecordBatch) error {
			select {
			case s.ch <- rb:
				return nil
			case <-ctx.Done():
				rb.Release()
				return ctx.Err()
			}
		})
		if err != nil {
			s.mu.Lock()
			s.err = err
			s.mu.Unlock()
		}
	}()
	return s
}

func (s *stream) Retain()                        {}
func (s *stream) Schema() *arrow.Schema          { return s.schema }
func (s *stream) RecordBatch() arrow.RecordBatch { return s.cur }
func (s *stream) Record() arrow.RecordBatch      { return s.cur }

// peek waits for the first batch without taking it: Next returns it
// first. Nil when the decoder ended (or failed) before its first batch.
func (s *stream) peek() arrow.RecordBatch {
	if !s.peeked {
		var ok bool
		s.first, ok = <-s.ch
		s.peeked, s.ended = true, !ok
	}
	return s.first
}

func (s *stream) Next() bool {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	if s.first != nil {
		s.cur, s.first = s.first, nil
		return true
	}
	if s.ended {
		return false
	}
	rb, ok := <-s.ch
	if !ok {
		return false
	}
	s.cur = rb
	return true
}

// unread gives the current batch back: Next returns it again first.
func (s *stream) unread() {
	s.first, s.cur = s.cur, nil
}

func (s *stream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Release stops the decoder and drops undelivered batches. The cdata export
// calls it when DuckDB releases the stream; close calls it too, so it must be
// safe to call twice.
func (s *stream) Release() {
	s.once.Do(func() {
		s.cancel()
		for rb := range s.ch {
			rb.Release()
		}
		<-s.done
		if s.first != nil {
			s.first.Release()
			s.first = nil
		}
		if s.cur != nil {
			s.cur.Release()
			s.cur = nil
		}
	})
}
