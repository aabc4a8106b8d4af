package engine

import (
	"context"
	"time"
)

// The Connect server closes a session idle for its timeout
// (spark.connect.session.manager.defaultSessionTimeout, an hour by
// default), idle counted from the session's last call, and cancels what
// it runs. The Go client calls the server only to start a step and to read
// its result: it does not reattach a long execution (its streams are not
// reattachable), so a step longer than the timeout, or a client busy
// longer than it between steps, lost its session (measured: `peaks
// --sliding` at 100 M rows, [INVALID_CURSOR.DISCONNECTED] after the 10
// minutes .ci/spark set). keepAlive calls the server every
// keepAliveEvery while the session is open, as pyspark's reattaching
// client does, so the session lives as long as rewind holds it; one left
// behind by a process that died is still closed at the timeout.

// keepAliveEvery is how often an open session calls the server.
const keepAliveEvery = time.Minute

// keepAlive starts the calls, one every every (none when it is 0); the
// function it returns stops them and waits for the last.
func (s *Spark) keepAlive(every time.Duration) (stop func()) {
	if every <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				// a config read: the cheapest call that names the session
				// (an error is the step's to report, not this call's)
				call, end := context.WithTimeout(ctx, 30*time.Second)
				_, _ = safely(func() (string, error) { return s.session.Config().Get(call, "spark.sql.session.timeZone") })
				end()
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
