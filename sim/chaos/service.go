package chaos

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Counts is what the catalog service saw in one run.
type Counts struct {
	Batches int // requests (batches) that reached the service
	Tagged  int // of those, carrying the experiment tag
	Paused  int // untagged batches the noise rule paused
}

// catalog is the service under experiment. It decides each batch's wait when
// the batch arrives and remembers it, so a run can check afterwards that every
// outcome matches what the service did (see flips).
type catalog struct {
	cfg    Config
	mu     sync.Mutex
	counts Counts
	waits  map[int]time.Duration
}

func (c *catalog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	batch, err := strconv.Atoi(q.Get("batch"))
	if err != nil {
		http.Error(w, "batch: not an integer", http.StatusBadRequest)
		return
	}
	wait := c.admit(batch, q.Get("experiment") == "1")
	if wait > 0 && !sleep(r.Context(), wait) {
		return // the client gave up; nobody reads the answer
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"record":"ok"}`))
}

// admit counts the batch and returns how long to hold it: the injected delay
// when tagged, the noise pause when the noise rule picks it, else nothing.
func (c *catalog) admit(batch int, tagged bool) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts.Batches++
	var wait time.Duration
	switch {
	case tagged:
		c.counts.Tagged++
		wait = c.cfg.Delay
	case c.cfg.pausedBatch(batch):
		c.counts.Paused++
		wait = c.cfg.NoisePause
	}
	c.waits[batch] = wait
	return wait
}

// sleep waits d or until ctx ends, and reports whether d elapsed. Handlers
// stop once their client disconnects, so shutdown does not wait on them.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// service is a running catalog on a loopback port.
type service struct {
	cat  *catalog
	srv  *http.Server
	url  string
	done chan error
}

// startService listens on 127.0.0.1 with a kernel-chosen port, so parallel
// runs and tests never collide.
func startService(cfg Config) (*service, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on loopback: %w", err)
	}
	cat := &catalog{cfg: cfg, waits: make(map[int]time.Duration)}
	s := &service{
		cat:  cat,
		srv:  &http.Server{Handler: cat, ReadHeaderTimeout: 10 * time.Second},
		url:  "http://" + ln.Addr().String() + "/record",
		done: make(chan error, 1),
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// stop shuts the service down and returns what it counted.
func (s *service) stop() (Counts, map[int]time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close() // a handler outlived the grace period; cut it off
	}
	if serveErr := <-s.done; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	s.cat.mu.Lock()
	defer s.cat.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("stop catalog service: %w", err)
	}
	return s.cat.counts, s.cat.waits, err
}
