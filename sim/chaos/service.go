package chaos

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/rewind-dev/rewind/internal/loopback"
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
	if wait > 0 && !loopback.Sleep(r.Context(), wait) {
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

// service is a running catalog on a loopback port.
type service struct {
	cat *catalog
	*loopback.Server
	url string
}

func startService(cfg Config) (*service, error) {
	cat := &catalog{cfg: cfg, waits: make(map[int]time.Duration)}
	srv, err := loopback.Start(cat)
	if err != nil {
		return nil, err
	}
	return &service{cat: cat, Server: srv, url: srv.URL + "/record"}, nil
}

// stop shuts the service down and returns what it counted.
func (s *service) stop() (Counts, map[int]time.Duration, error) {
	err := s.Stop()
	s.cat.mu.Lock()
	defer s.cat.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("stop catalog service: %w", err)
	}
	return s.cat.counts, s.cat.waits, err
}
