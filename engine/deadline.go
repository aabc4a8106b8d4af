package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// DeadlineError is a reduce step that gave no result within its deadline:
// a cluster that lost the job (a Spark Connect driver out of memory
// answers nothing, and the client would wait forever) or that is slower
// than the deadline allows.
type DeadlineError struct {
	Step     string        // the step's name (a reduce step's table)
	Deadline time.Duration // the deadline of each step
	Err      error
}

func (e *DeadlineError) Error() string {
	return fmt.Sprintf("step %s on the cluster: no result within %s, the deadline of a step, so it was interrupted; "+
		"the cluster may have lost the job (a driver out of memory: see the Spark Connect server's log) or be slower than that", e.Step, e.Deadline)
}

func (e *DeadlineError) Unwrap() error { return e.Err }

// WithDeadline runs fn, one step on an engine, with a context that ends
// after d (none when d is 0), and names the step step when it is past
// the deadline. ctx's own end (a command cancelled) is returned as it is.
func WithDeadline(ctx context.Context, d time.Duration, step string, fn func(context.Context) error) error {
	if d <= 0 {
		return fn(ctx)
	}
	sctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := fn(sctx)
	if err != nil && errors.Is(sctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return &DeadlineError{Step: step, Deadline: d, Err: err}
	}
	return err
}

// bounded runs fn, a call of the Spark client, and returns when fn does or
// when ctx ends, whichever is first: the client does not always return
// when its context ends (a retry sleeps up to a minute without watching
// it), so fn is left to end on its own. fn's context has ctx's values but
// not its deadline, and is cancelled only once ctx has ended: gRPC would
// otherwise send the deadline to the server, whose own cancel could come
// back first, as an error of the call that does not say the deadline
// passed. A call cut short, or that failed once ctx ended, has the
// session's operations interrupted on the server (Interrupt ALL, as
// pyspark's interruptAll: the client has no Interrupt call), so that the
// cluster does not go on computing a result no one reads; the session
// stays usable.
func bounded[T any](ctx context.Context, s *Spark, fn func(context.Context) (T, error)) (T, error) {
	if ctx.Done() == nil {
		return safely(func() (T, error) { return fn(ctx) })
	}
	call, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer context.AfterFunc(ctx, cancel)()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer cancel()
		v, err := safely(func() (T, error) { return fn(call) })
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		if r.err == nil || ctx.Err() == nil {
			return r.v, r.err
		}
	case <-ctx.Done():
	}
	s.interrupt()
	var zero T
	return zero, ctx.Err()
}

// interrupt interrupts every operation of the session and counts the
// operations the server says it interrupted (Stats.Interrupted).
func (s *Spark) interrupt() {
	resp, err := s.keeper.call("Interrupt", func(req protoreflect.Message) {
		f := req.Descriptor().Fields().ByName("interrupt_type")
		req.Set(f, protoreflect.ValueOfEnum(f.Enum().Values().ByName("INTERRUPT_TYPE_ALL").Number()))
	})
	if err != nil || resp == nil {
		return // the deadline's error stands; a server that is gone has nothing running
	}
	ids := resp.Get(resp.Descriptor().Fields().ByName("interrupted_ids")).List()
	s.stats.Interrupted += ids.Len()
}
